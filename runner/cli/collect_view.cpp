// The listing of collected cases (see collect_view.h).
#include "runner/cli/collect_view.h"

#include <map>
#include <string>

namespace meshtest::runner {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The id's own line: loader errors and placeholders are said there (with -q on stderr).
std::string id_notes(const TestCase& t) {
  if (!t.loader_error.empty()) return "  [loader error: " + t.loader_error + "]";
  if (t.placeholder) return "  [placeholder: " + std::string(config::bringup_name(*t.expectation.bringup_status)) + "]";
  return "";
}

// "EXPECTED_PASSING · markers: a, b · reason: ...".
std::string details(const TestCase& t) {
  std::string out = std::string(config::status_name(t.expectation.status));
  if (t.expectation.flaky) out += " · flaky";
  out += " · markers: " + joined(t.markers);
  if (!t.expectation.reason.empty()) out += " · reason: " + t.expectation.reason;
  return out;
}

// -q: stdout holds the ids alone (for `meshtest run $(meshtest collect -q ...)`); a note goes to `notes`.
void print_flat(std::ostream& out, std::ostream& notes, const std::vector<const TestCase*>& selected,
                const CollectView& view) {
  const bool quiet = view.verbosity < 0;
  for (const TestCase* t : selected) {
    const std::string note = id_notes(*t);
    out << t->id << (quiet ? "" : note) << "\n";
    if (quiet && !note.empty()) notes << t->id << note << "\n";
    if (!quiet && t->loader_error.empty()) out << "    " << details(*t) << "\n";
  }
}

void print_tree(std::ostream& out, const std::vector<const TestCase*>& selected, const CollectView& view) {
  std::map<std::string, std::vector<const TestCase*>> by_folder;
  for (const TestCase* t : selected) by_folder[t->loader_dir.empty() ? t->id : t->loader_dir].push_back(t);
  for (const auto& [folder, cases] : by_folder) {
    out << folder << "  (" << cases.size() << " case" << (cases.size() == 1 ? "" : "s") << ")\n";
    for (const TestCase* t : cases) {
      const bool under = t->id.rfind(folder + "-", 0) == 0;
      out << "  " << (under ? t->id.substr(folder.size() + 1) : t->id) << id_notes(*t);
      if (view.verbosity >= 0 && t->loader_error.empty()) out << "  " << details(*t);
      out << "\n";
    }
  }
}

}  // namespace

void print_collection(std::ostream& out, std::ostream& summary, const std::vector<const TestCase*>& selected,
                      size_t collected, size_t deselected, const CollectView& view) {
  if (view.tree) print_tree(out, selected, view);
  else print_flat(out, summary, selected, view);
  out.flush();  // the ids before a summary on stderr, where both reach one terminal or file
  (view.verbosity < 0 ? summary : out) << selected.size() << "/" << collected << " tests collected (" << deselected
                                       << " deselected)\n";
}

}  // namespace meshtest::runner
