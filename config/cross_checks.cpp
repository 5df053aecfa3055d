// Stale-id and placeholder-duplicate checks (see cross_checks.h).
#include "config/cross_checks.h"

#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "config/nearest_name.h"

namespace meshtest::config {

namespace {

// Letters and digits only, in lower case: "ResNet-50" and "resnet50" are one name.
std::string normalized(std::string_view name) {
  std::string out;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

// Nearest real ids for stale ones, within a budget of edit-distance
// computations so a config and a matrix that do not match at all (20,000
// stale ids against 100,000 cases) stay fast: an id is compared with the ids
// of its own loader folder (the part before the first '-') when there are
// any, else with every id.
class NearestIds {
 public:
  explicit NearestIds(const std::vector<std::string>& ids) : all_(ids) {}

  std::optional<std::string> find(const std::string& id) {
    if (by_folder_.empty()) {  // built on the first stale id only
      for (const std::string& known : all_) by_folder_[folder(known)].push_back(known);
    }
    auto it = by_folder_.find(folder(id));
    const std::vector<std::string>& candidates = it != by_folder_.end() ? it->second : all_;
    if (candidates.size() > budget_) return std::nullopt;
    budget_ -= candidates.size();
    return nearest_name(id, candidates);
  }

 private:
  static std::string folder(const std::string& id) { return id.substr(0, id.find('-')); }

  const std::vector<std::string>& all_;
  std::unordered_map<std::string, std::vector<std::string>> by_folder_;
  size_t budget_ = 200000;
};

}  // namespace

void check_stale_ids(const TestConfig& config, const std::vector<std::string>& case_ids, Severity severity,
                     std::vector<Diagnostic>& out) {
  const std::unordered_set<std::string> known(case_ids.begin(), case_ids.end());
  NearestIds nearest(case_ids);
  for (const auto& [id, entry] : config.entries) {
    if (known.count(id)) continue;
    std::string message = "test id '" + id + "' matches no discovered case";
    if (auto near = nearest.find(id)) message += " (nearest: '" + *near + "')";
    out.push_back({entry.defined_at, message, severity});
  }
}

void check_placeholders(const TestConfig& config, const std::vector<KnownModel>& models, Severity severity,
                        std::vector<Diagnostic>& out) {
  std::unordered_map<std::string, std::string> by_name;  // normalized name -> "dir-variant"
  for (const KnownModel& m : models) {
    const std::string shown = m.variant.empty() ? m.loader_dir : m.loader_dir + "-" + m.variant;
    for (const std::string* name : {&m.variant, &m.model, &m.loader_dir}) {
      if (!name->empty()) by_name.emplace(normalized(*name), shown);
    }
  }
  for (const auto& [id, p] : config.placeholders) {
    const size_t slash = p.name.rfind('/');
    for (const std::string& candidate :
         {normalized(p.name), normalized(slash == std::string::npos ? p.name : p.name.substr(slash + 1))}) {
      auto it = by_name.find(candidate);
      if (it == by_name.end()) continue;
      out.push_back({p.entry.defined_at,
                     "placeholder '" + p.name + "' duplicates the discovered model '" + it->second +
                         "'; remove the placeholder now that the model has a loader",
                     severity});
      break;
    }
  }
}

}  // namespace meshtest::config
