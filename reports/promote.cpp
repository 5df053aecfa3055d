// Promotion rules and the files they edit.
#include "reports/promote.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "config/arch_names.h"
#include "config/test_config.h"
#include "core/atomic_file.h"
#include "reports/guidance.h"

namespace meshtest::reports {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string format_pcc(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  while (s.size() > 3 && s.back() == '0') s.pop_back();
  return s;
}

std::vector<PromotedFile> load_files(const std::string& config_dir) {
  std::vector<std::string> paths;
  if (fs::is_directory(config_dir)) {
    for (const auto& e : fs::recursive_directory_iterator(config_dir)) {
      if (e.is_regular_file() && config::is_test_config_file(e.path().string())) paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  const std::string dir_name = fs::path(config_dir).lexically_normal().filename().string();
  std::vector<PromotedFile> files;
  for (const auto& p : paths) {
    const std::string rel = fs::path(p).lexically_relative(config_dir).generic_string();
    files.push_back({p, (dir_name.empty() ? "" : dir_name + "/") + rel, YamlEntryEdits(read_file(p))});
  }
  if (files.empty()) {
    const std::string p = (fs::path(config_dir) / "promoted.yaml").string();
    files.push_back({p, (dir_name.empty() ? "" : dir_name + "/") + "promoted.yaml", YamlEntryEdits("")});
  }
  return files;
}

size_t common_prefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The file for a new entry: the one holding the id most like it.
PromotedFile& home_for(std::vector<PromotedFile>& files, const std::string& id,
                       const std::map<std::string, size_t>& entry_file) {
  size_t best = 0, best_len = 0;
  for (const auto& [other, file] : entry_file) {
    const size_t len = common_prefix(id, other);
    if (len > best_len) best = file, best_len = len;
  }
  return files[best];
}

// What the runs show for a case that passed in every one of them.
struct Evidence {
  double worst_pcc = NAN;
  std::vector<std::string> archs;  // the archs it passed on, in order of first appearance
  std::string other_backend;       // a backend besides the simulated chip it passed on (empty: none)
};

std::map<std::string, Evidence> passed_everywhere(const std::vector<RunResults>& runs) {
  std::map<std::string, int> passes;
  std::map<std::string, Evidence> seen;
  for (const RunResults& run : runs) {
    for (const auto& [id, r] : final_results(run.results)) {
      if (!is_pass(r->outcome)) continue;
      Evidence& e = seen[id];
      const double worst = ++passes[id] == 1 ? r->pcc : e.worst_pcc;
      e.worst_pcc = std::isnan(worst) || std::isnan(r->pcc) ? NAN : std::min(worst, r->pcc);
      if (!r->backend.empty() && r->backend != "simulated") e.other_backend = r->backend;
      if (!r->arch.empty() && std::find(e.archs.begin(), e.archs.end(), r->arch) == e.archs.end()) {
        e.archs.push_back(r->arch);
      }
    }
  }
  std::map<std::string, Evidence> out;
  for (const auto& [id, n] : passes) {
    if (n == static_cast<int>(runs.size())) out[id] = seen[id];
  }
  return out;
}

std::string names_text(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

std::string flow_list(const std::vector<std::string>& names) { return "[" + names_text(names) + "]"; }

// `supported_archs` as written: absent means the defaults; nullopt when it is
// not a flow list or a scalar (a block list is left to a person).
std::optional<std::vector<std::string>> parse_archs(const std::optional<std::string>& text) {
  if (!text) return config::default_supported_archs();
  std::string body = *text;
  if (body.empty()) return std::nullopt;
  if (body.front() == '[' && body.back() == ']') body = body.substr(1, body.size() - 2);
  std::vector<std::string> archs;
  std::stringstream items(body);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t b = item.find_first_not_of(" \"'"), e = item.find_last_not_of(" \"'");
    if (b != std::string::npos) archs.push_back(item.substr(b, e - b + 1));
  }
  return archs;
}

// How a case's evidence relates to the archs its entry supports.
struct ArchPlacement {
  std::vector<std::string> supported;  // the entry's, then the new ones
  std::vector<std::string> new_archs;  // passed there, not yet supported
  bool at_home = true;                 // passed on some arch the entry already supported (or arch unknown)
};

ArchPlacement place(const Evidence& evidence, std::vector<std::string> supported) {
  ArchPlacement p;
  p.at_home = evidence.archs.empty();
  for (const std::string& arch : evidence.archs) {
    if (std::find(supported.begin(), supported.end(), arch) != supported.end()) {
      p.at_home = true;
    } else {
      p.new_archs.push_back(arch);
    }
  }
  p.supported = std::move(supported);
  p.supported.insert(p.supported.end(), p.new_archs.begin(), p.new_archs.end());
  return p;
}

const std::string kPassingOverride = "{status: EXPECTED_PASSING}";

void add_new_entry(PromotedFile& file, const std::string& id, const ArchPlacement& p, PromotionPlan& plan) {
  std::vector<std::pair<std::string, std::string>> fields;
  if (p.at_home) fields.push_back({"status", "EXPECTED_PASSING"});
  if (!p.new_archs.empty()) fields.push_back({"supported_archs", flow_list(p.supported)});
  if (!p.at_home) {
    std::string overrides;
    for (const std::string& arch : p.new_archs) overrides += (overrides.empty() ? "" : ", ") + arch + ": " + kPassingOverride;
    fields.push_back({"arch_overrides", "{" + overrides + "}"});
  }
  file.edits.add_entry(id, fields);
  plan.changes.push_back(id + ": new entry, status EXPECTED_PASSING" +
                         (p.at_home ? "" : " on " + names_text(p.new_archs) + " (arch_overrides)"));
}

// UNSPECIFIED / KNOWN_FAILURE_XFAIL -> EXPECTED_PASSING on the entry's own
// archs, or through arch_overrides on new ones. False when a person must edit.
bool promote_status(YamlEntryEdits& yaml, const std::string& id, const std::string& status, const ArchPlacement& p,
                    PromotionPlan& plan) {
  if (p.at_home) {
    yaml.set_field(id, "status", "EXPECTED_PASSING", /*first=*/true);
    yaml.erase_field(id, "reason");          // the failure it explained is gone
    yaml.erase_field(id, "bringup_status");  // ditto
    yaml.erase_field(id, "execution_pass");  // the pass that failed: a passing result would still record it
    plan.changes.push_back(id + ": status " + status + " -> EXPECTED_PASSING");
    return true;
  }
  for (const std::string& arch : p.new_archs) {
    if (!yaml.add_to_mapping_field(id, "arch_overrides", arch, kPassingOverride)) {
      plan.notes.push_back(id + ": not promoted on " + arch +
                           ", its arch_overrides is in flow style or already names the arch (edit it by hand)");
      return false;
    }
  }
  plan.changes.push_back(id + ": status " + status + " -> EXPECTED_PASSING on " + names_text(p.new_archs) +
                         " (arch_overrides)");
  return true;
}

// Re-enables a disabled PCC check that passes; with raise_pcc, raises a loose threshold.
void tighten_pcc(YamlEntryEdits& yaml, const std::string& id, double worst, const PromoteOptions& options,
                 PromotionPlan& plan) {
  if (std::isnan(worst)) return;
  const auto required_text = yaml.field(id, "required_pcc");
  const double required = required_text ? std::strtod(required_text->c_str(), nullptr) : kDefaultRequiredPcc;
  if (yaml.field(id, "assert_pcc").value_or("true") == "false") {
    if (worst < required) return;
    yaml.set_field(id, "assert_pcc", "true");
    plan.changes.push_back(id + ": PCC check re-enabled (worst PCC " + format_pcc(worst) + ")");
  }
  if (options.raise_pcc && can_raise_pcc(worst, required)) {
    yaml.set_field(id, "required_pcc", format_pcc(raised_pcc_threshold(worst)));
    plan.changes.push_back(id + ": required_pcc " + format_pcc(required) + " -> " +
                           format_pcc(raised_pcc_threshold(worst)));
  }
}

}  // namespace

PromotionPlan plan_promotions(const std::vector<RunResults>& runs, const std::string& config_dir,
                              const PromoteOptions& options) {
  PromotionPlan plan;
  if (runs.empty()) {
    plan.notes.push_back("no runs in the store");
    return plan;
  }
  std::vector<PromotedFile> files = load_files(config_dir);
  const std::set<std::string> flaky = flaky_ids(runs, /*strict=*/true);
  std::map<std::string, size_t> entry_file;  // known ids -> file index, for homing new entries
  std::set<std::string> unsupported;          // entries written in flow style: left to a person
  const auto candidates = passed_everywhere(runs);
  for (const auto& [id, evidence] : candidates) {
    for (size_t f = 0; f < files.size(); ++f) {
      if (files[f].edits.has_entry(id)) entry_file[id] = f;
      else if (files[f].edits.mentions(id)) unsupported.insert(id);
    }
  }
  for (const auto& [id, evidence] : candidates) {
    if (flaky.count(id)) {
      plan.notes.push_back(id + ": not promoted, its outcome changed within the last " + std::to_string(runs.size()) +
                           " run(s)");
      continue;
    }
    // A pass on a PJRT plugin says nothing of the simulated chip's entry, and
    // its own expectation may sit in backend_overrides: a person decides.
    if (!evidence.other_backend.empty()) {
      plan.notes.push_back(id + ": not promoted, it passed on backend '" + evidence.other_backend +
                           "' (its expectation there is backend_overrides." + evidence.other_backend +
                           "; edit it by hand)");
      continue;
    }
    if (unsupported.count(id) && !entry_file.count(id)) {
      plan.notes.push_back(id + ": not promoted, its entry is not a block mapping (edit it by hand)");
      continue;
    }
    auto at = entry_file.find(id);
    if (at == entry_file.end()) {
      add_new_entry(home_for(files, id, entry_file), id, place(evidence, config::default_supported_archs()), plan);
      continue;
    }
    YamlEntryEdits& yaml = files[at->second].edits;
    const std::string status = upper(yaml.field(id, "status").value_or("UNSPECIFIED"));
    if (status != "UNSPECIFIED" && status != "KNOWN_FAILURE_XFAIL" && status != "EXPECTED_PASSING") {
      continue;  // NOT_SUPPORTED_SKIP / EXCLUDE_MODEL: a person decides
    }
    const auto supported = parse_archs(yaml.field(id, "supported_archs"));
    if (!supported) {
      plan.notes.push_back(id + ": not promoted, its supported_archs is not a flow list (edit it by hand)");
      continue;
    }
    const ArchPlacement placement = place(evidence, *supported);
    if (status != "EXPECTED_PASSING" && !promote_status(yaml, id, status, placement, plan)) continue;
    if (!placement.new_archs.empty()) {
      yaml.set_field(id, "supported_archs", flow_list(placement.supported));
      plan.changes.push_back(id + ": supported_archs + " + names_text(placement.new_archs));
    }
    if (placement.at_home) tighten_pcc(yaml, id, evidence.worst_pcc, options, plan);
  }
  for (auto& f : files) {
    if (f.edits.edits().changed()) plan.files.push_back(std::move(f));
  }
  return plan;
}

std::string PromotionPlan::unified_diff() const {
  std::string out;
  for (const PromotedFile& f : files) {
    out += f.edits.edits().unified_diff("a/" + f.display_name, "b/" + f.display_name);
  }
  return out;
}

void PromotionPlan::write() const {
  for (const PromotedFile& f : files) write_file_atomically(f.path, f.edits.edits().result(), "test_config");
}

}  // namespace meshtest::reports
