// Applies ids, -k and -m to the matrix.
#include "runner/collection/selection.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "config/arch_names.h"
#include "config/nearest_name.h"
#include "core/error.h"
#include "runner/collection/expression.h"

namespace meshtest::runner {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool keyword_matches(const TestCase& c, const std::string& word) {
  const std::string w = lower(word);
  if (lower(c.id).find(w) != std::string::npos) return true;
  return std::any_of(c.markers.begin(), c.markers.end(),
                     [&](const std::string& m) { return lower(m).find(w) != std::string::npos; });
}

bool has_marker(const TestCase& c, const std::string& name) {
  return std::find(c.markers.begin(), c.markers.end(), name) != c.markers.end();
}

// Throws Error for the first identifier of `marker` that no case carries (arch names are always known).
void check_markers_known(const std::vector<TestCase>& cases, const Expression& marker) {
  std::set<std::string> known(config::known_arch_names().begin(), config::known_arch_names().end());
  for (const TestCase& c : cases) known.insert(c.markers.begin(), c.markers.end());
  for (const std::string& name : marker.identifiers()) {
    if (known.count(name)) continue;
    const std::optional<std::string> nearest =
        config::nearest_name(name, std::vector<std::string>(known.begin(), known.end()));
    throw Error("-m: no collected case has the marker '" + name + "'" +
                (nearest ? " (nearest known marker: '" + *nearest + "')" : "") +
                "; pass --allow-unknown-markers to select by it anyway");
  }
}

}  // namespace

Selection select_cases(const std::vector<TestCase>& cases, const SelectionOptions& options) {
  const Expression keyword = Expression::parse(options.keyword, "-k expression");
  const Expression marker = Expression::parse(options.marker, "-m expression");
  if (!options.allow_unknown_markers) check_markers_known(cases, marker);
  std::set<std::string> wanted(options.ids.begin(), options.ids.end());
  std::set<std::string> found;
  Selection s;
  for (const TestCase& c : cases) {
    bool keep = true;
    if (!wanted.empty()) {
      keep = wanted.count(c.id) != 0;
      if (keep) found.insert(c.id);
    }
    if (keep && c.expectation.status == config::TestStatus::ExcludeModel) keep = false;
    if (keep) keep = keyword.evaluate([&](const std::string& w) { return keyword_matches(c, w); });
    if (keep && c.loader_error.empty()) keep = marker.evaluate([&](const std::string& m) { return has_marker(c, m); });
    if (keep) s.selected.push_back(&c);
    else ++s.deselected;
  }
  for (const std::string& id : wanted) {
    if (!found.count(id)) throw Error("no test case has the id '" + id + "' (see `meshtest collect`)");
  }
  return s;
}

}  // namespace meshtest::runner
