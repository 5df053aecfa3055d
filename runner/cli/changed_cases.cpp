// Changed entries and loaders since a git revision (see changed_cases.h).
#include "runner/cli/changed_cases.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "config/overrides.h"
#include "core/error.h"
#include "runner/cli/git_revision.h"

#ifndef MESHTEST_BUILD_MODELS_ROOT
#define MESHTEST_BUILD_MODELS_ROOT ""
#endif
#ifndef MESHTEST_SOURCE_MODELS_ROOT
#define MESHTEST_SOURCE_MODELS_ROOT "models"
#endif

namespace meshtest::runner {

namespace {

namespace fs = std::filesystem;

// `entry` with every location blanked (the fields it sets are kept): what two revisions compare.
config::TestEntry without_locations(config::TestEntry entry) {
  entry.defined_at = {};
  for (auto& [field, where] : entry.sources) where = {};
  for (const config::OverrideKind& kind : config::override_kinds()) {
    for (config::Override& o : entry.*kind.blocks) {
      o.defined_at = {};
      o.fields = without_locations(std::move(o.fields));
    }
  }
  return entry;
}

std::string number_text(const std::optional<double>& value) {
  if (!value) return "unset";
  std::ostringstream out;
  out << *value;
  return out.str();
}

// The short reason two versions of one entry differ: the status, else the PCC threshold, else the field names set on one side only.
std::string difference(const config::TestEntry& was, const config::TestEntry& now) {
  if (was.status != now.status) {
    return "status " + std::string(config::status_name(was.status)) + " -> " +
           std::string(config::status_name(now.status));
  }
  if (was.required_pcc != now.required_pcc) {
    return "required_pcc " + number_text(was.required_pcc) + " -> " + number_text(now.required_pcc);
  }
  if (was.reason != now.reason) return "reason changed";
  std::vector<std::string> fields;
  for (const auto& [field, where] : now.sources) {
    if (!was.sources.count(field)) fields.push_back("+" + field);
  }
  for (const auto& [field, where] : was.sources) {
    if (!now.sources.count(field)) fields.push_back("-" + field);
  }
  if (fields.empty()) return "entry changed";
  std::string text = "fields";
  for (const std::string& f : fields) text += " " + f;
  return text;
}

template <class Map, class EntryOf>
void compare_maps(const Map& before, const Map& after, EntryOf entry_of, std::vector<ChangedCase>& out) {
  for (const auto& [id, now] : after) {
    auto it = before.find(id);
    if (it == before.end()) {
      out.push_back({id, "added", false});
    } else if (without_locations(entry_of(it->second)) != without_locations(entry_of(now))) {
      out.push_back({id, difference(entry_of(it->second), entry_of(now)), false});
    }
  }
  for (const auto& [id, was] : before) {
    if (!after.count(id)) out.push_back({id, "removed", false});
  }
}

// The loader folder that owns `file` (relative to a models root), among
// `dirs`: the longest folder `file` lies in, or a declarative loader file
// whose folder is its own path without the extension ("ops/add.mtir").
const std::string* owner_of(const std::string& file, const std::set<std::string>& dirs) {
  const std::string* best = nullptr;
  for (const std::string& dir : dirs) {
    const bool inside = file.size() > dir.size() && file.compare(0, dir.size(), dir) == 0 && file[dir.size()] == '/';
    const bool is_loader_file = fs::path(file).replace_extension().generic_string() == dir;
    if ((inside || is_loader_file) && (!best || dir.size() > best->size())) best = &dir;
  }
  return best;
}

// Merges `found` by id (reasons joined), sorted by id, each marked in_matrix.
std::vector<ChangedCase> merged(std::vector<ChangedCase> found, const std::vector<TestCase>& cases) {
  std::set<std::string> matrix;
  for (const TestCase& c : cases) matrix.insert(c.id);
  std::map<std::string, ChangedCase> by_id;
  for (ChangedCase& c : found) {
    auto [it, inserted] = by_id.try_emplace(c.id, c);
    if (!inserted && it->second.reason.find(c.reason) == std::string::npos) it->second.reason += "; " + c.reason;
  }
  std::vector<ChangedCase> out;
  for (auto& [id, c] : by_id) {
    c.in_matrix = matrix.count(id) > 0;
    out.push_back(std::move(c));
  }
  return out;
}

// The folder whose files are compared for a models root: the source tree's
// models/ for the build's models root, else the root itself.
fs::path source_of(const std::string& root) {
  std::error_code ec;
  const std::string build_root = MESHTEST_BUILD_MODELS_ROOT;
  if (!build_root.empty() && fs::equivalent(root, build_root, ec)) return MESHTEST_SOURCE_MODELS_ROOT;
  return root;
}

config::TestConfig config_at(const GitRepository& repo, const std::string& revision, const std::string& config_path,
                             std::vector<std::string>& notes) {
  config::TestConfig config;
  std::vector<config::Diagnostic> diagnostics;
  for (const std::string& file : repo.files_at(revision, repo.relative(config_path))) {
    if (!config::is_test_config_file(file)) continue;
    config::load_test_config_text(repo.show(revision, file), revision + ":" + file, config, diagnostics);
  }
  if (const size_t errors = config::count_errors(diagnostics)) {
    notes.push_back("the test_config at " + revision + " has " + std::to_string(errors) +
                    " error(s); its entries are compared as far as they load");
  }
  return config;
}

}  // namespace

std::vector<ChangedCase> changed_entries(const config::TestConfig& before, const config::TestConfig& after) {
  std::vector<ChangedCase> out;
  compare_maps(before.entries, after.entries, [](const config::TestEntry& e) -> const config::TestEntry& { return e; },
               out);
  compare_maps(before.placeholders, after.placeholders,
               [](const config::Placeholder& p) -> const config::TestEntry& { return p.entry; }, out);
  std::sort(out.begin(), out.end(), [](const ChangedCase& a, const ChangedCase& b) { return a.id < b.id; });
  return out;
}

std::vector<ChangedCase> cases_of_changed_files(const std::vector<std::string>& files,
                                                const std::vector<TestCase>& cases,
                                                std::vector<std::string>& unowned) {
  std::set<std::string> dirs;
  for (const TestCase& c : cases) {
    if (!c.loader_dir.empty()) dirs.insert(c.loader_dir);
  }
  std::map<std::string, std::string> reason_of_dir;  // loader folder -> "loader file a, b"
  for (const std::string& file : files) {
    const std::string* dir = owner_of(file, dirs);
    if (!dir) {
      unowned.push_back(file);
      continue;
    }
    std::string& reason = reason_of_dir[*dir];
    reason += (reason.empty() ? "loader file " : ", ") + file;
  }
  std::vector<ChangedCase> out;
  for (const TestCase& c : cases) {
    auto it = reason_of_dir.find(c.loader_dir);
    if (!c.loader_dir.empty() && it != reason_of_dir.end()) out.push_back({c.id, it->second, true});
  }
  return out;
}

ChangedCases find_changed_cases(const Collected& collected, const CommonOptions& options, const std::string& base) {
  ChangedCases result;
  const std::string config_path = resolved_config_dir(options);
  const GitRepository repo = GitRepository::containing(config_path);
  repo.check_revision(base);
  std::vector<ChangedCase> found = changed_entries(config_at(repo, base, config_path, result.notes), collected.config);
  for (const std::string& root : resolved_models_roots(options)) {
    const fs::path source = source_of(root);
    std::string relative_root;
    try {
      relative_root = repo.relative(source);
    } catch (const Error&) {
      result.notes.push_back("models root " + source.string() + " is outside the repository " + repo.top().string() +
                             ": its loaders are not compared");
      continue;
    }
    std::vector<std::string> files;
    for (const std::string& path : repo.changed_since(base, relative_root)) {
      files.push_back(relative_root.empty() ? path : path.substr(relative_root.size() + 1));
    }
    std::vector<std::string> unowned;
    for (ChangedCase& c : cases_of_changed_files(files, collected.cases, unowned)) found.push_back(std::move(c));
    for (const std::string& file : unowned) {
      result.notes.push_back((fs::path(relative_root) / file).generic_string() +
                             " changed; no loader folder holds it (shared code): no case selected for it");
    }
  }
  result.cases = merged(std::move(found), collected.cases);
  return result;
}

}  // namespace meshtest::runner
