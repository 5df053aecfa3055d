// Promotion rules and the files they edit.
#include "reports/promote.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/atomic_file.h"
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
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) paths.push_back(e.path().string());
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

// Every case whose final result passed in every run, with its worst PCC.
std::map<std::string, double> passed_everywhere(const std::vector<RunResults>& runs) {
  std::map<std::string, int> passes;
  std::map<std::string, double> worst;
  for (const RunResults& run : runs) {
    for (const auto& [id, r] : final_results(run.results)) {
      if (!is_pass(r->outcome)) continue;
      ++passes[id];
      auto [it, fresh] = worst.emplace(id, r->pcc);
      if (!fresh) it->second = std::isnan(it->second) || std::isnan(r->pcc) ? NAN : std::min(it->second, r->pcc);
    }
  }
  std::map<std::string, double> out;
  for (const auto& [id, n] : passes) {
    if (n == static_cast<int>(runs.size())) out[id] = worst[id];
  }
  return out;
}

}  // namespace

PromotionPlan plan_promotions(const std::vector<RunResults>& runs, const std::string& config_dir) {
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
  for (const auto& [id, worst] : candidates) {
    for (size_t f = 0; f < files.size(); ++f) {
      if (files[f].edits.has_entry(id)) entry_file[id] = f;
      else if (files[f].edits.mentions(id)) unsupported.insert(id);
    }
  }
  for (const auto& [id, worst] : candidates) {
    if (flaky.count(id)) {
      plan.notes.push_back(id + ": not promoted, its outcome changed within the last " + std::to_string(runs.size()) +
                           " run(s)");
      continue;
    }
    if (unsupported.count(id) && !entry_file.count(id)) {
      plan.notes.push_back(id + ": not promoted, its entry is not a block mapping (edit it by hand)");
      continue;
    }
    auto at = entry_file.find(id);
    if (at == entry_file.end()) {
      std::vector<std::pair<std::string, std::string>> fields = {{"status", "EXPECTED_PASSING"}};
      if (can_raise_pcc(worst, kDefaultRequiredPcc)) fields.push_back({"required_pcc", format_pcc(raised_pcc_threshold(worst))});
      home_for(files, id, entry_file).edits.add_entry(id, fields);
      plan.changes.push_back(id + ": new entry, status EXPECTED_PASSING");
      continue;
    }
    YamlEntryEdits& yaml = files[at->second].edits;
    const std::string status = upper(yaml.field(id, "status").value_or("UNSPECIFIED"));
    if (status == "UNSPECIFIED" || status == "KNOWN_FAILURE_XFAIL") {
      yaml.set_field(id, "status", "EXPECTED_PASSING", /*first=*/true);
      if (status == "KNOWN_FAILURE_XFAIL") yaml.erase_field(id, "reason");
      plan.changes.push_back(id + ": status " + status + " -> EXPECTED_PASSING");
    } else if (status != "EXPECTED_PASSING") {
      continue;  // NOT_SUPPORTED_SKIP / EXCLUDE_MODEL: a person decides
    }
    if (std::isnan(worst)) continue;
    const auto required_text = yaml.field(id, "required_pcc");
    const double required = required_text ? std::strtod(required_text->c_str(), nullptr) : kDefaultRequiredPcc;
    const bool disabled = yaml.field(id, "assert_pcc").value_or("true") == "false";
    if (disabled) {
      if (worst < required) continue;
      yaml.set_field(id, "assert_pcc", "true");
      plan.changes.push_back(id + ": PCC check re-enabled (worst PCC " + format_pcc(worst) + ")");
    }
    if (can_raise_pcc(worst, required)) {
      yaml.set_field(id, "required_pcc", format_pcc(raised_pcc_threshold(worst)));
      plan.changes.push_back(id + ": required_pcc " + format_pcc(required) + " -> " +
                             format_pcc(raised_pcc_threshold(worst)));
    }
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
