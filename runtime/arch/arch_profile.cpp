// Arch profile loading: YAML -> ArchProfile, every field checked, errors with
// 1-based file:line:column.
#include "runtime/arch/arch_profile.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"

#ifndef MESHTEST_ARCH_PROFILES_FILE
#define MESHTEST_ARCH_PROFILES_FILE "runtime/arch/profiles.yaml"
#endif

namespace meshtest::runtime {

namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Node& node, const std::string& message) {
  const YAML::Mark m = node.Mark();
  throw ParseError(file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " + message);
}

// A positive integer or number (`kind` names it in the message).
template <typename T>
T positive(const std::string& file, const YAML::Node& node, const std::string& what, const char* kind) {
  T v = 0;
  try {
    v = node.as<T>();
  } catch (const YAML::Exception&) {
    fail(file, node, what + " must be " + kind);
  }
  if (!(v > 0)) fail(file, node, what + " must be positive, got " + node.as<std::string>());
  return v;
}

int64_t positive_int(const std::string& file, const YAML::Node& node, const std::string& what) {
  return positive<int64_t>(file, node, what, "an integer");
}

std::vector<int64_t> int_list(const std::string& file, const YAML::Node& node, const std::string& what, size_t size) {
  if (!node.IsSequence() || node.size() != size) {
    fail(file, node, what + " must be a list of " + std::to_string(size) + " positive integers");
  }
  std::vector<int64_t> out;
  for (const YAML::Node& n : node) out.push_back(positive_int(file, n, what));
  return out;
}

// The `perf:` mapping: published figures required, modelled ones optional
// (their defaults are ChipPerf's).
runtime::ChipPerf parse_perf(const std::string& file, const std::string& name, const YAML::Node& node) {
  if (!node.IsMap()) fail(file, node, "profile '" + name + "': perf must be a mapping");
  runtime::ChipPerf perf;
  const std::vector<std::pair<std::string, double*>> required = {
      {"clock_ghz", &perf.clock_ghz},     {"tflops_lofi", &perf.tflops_lofi},
      {"tflops_bfp8", &perf.tflops_bfp8}, {"tflops_bf16", &perf.tflops_bf16},
      {"dram_gb_per_s", &perf.dram_gb_per_s}, {"eth_gb_per_s", &perf.eth_gb_per_s}};
  const std::vector<std::pair<std::string, double*>> optional = {
      {"l1_bytes_per_cycle_per_core", &perf.l1_bytes_per_cycle_per_core},
      {"vector_elems_per_cycle_per_core", &perf.vector_elems_per_cycle_per_core},
      {"eth_latency_us", &perf.eth_latency_us},
      {"op_overhead_us", &perf.op_overhead_us}};
  std::set<std::string> known;
  for (const auto& [key, slot] : required) {
    known.insert(key);
    if (!node[key]) fail(file, node, "profile '" + name + "': perf: missing field '" + key + "'");
    *slot = positive<double>(file, node[key], "perf." + key, "a number");
  }
  for (const auto& [key, slot] : optional) {
    known.insert(key);
    if (node[key]) *slot = positive<double>(file, node[key], "perf." + key, "a number");
  }
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!known.count(key)) fail(file, kv.first, "profile '" + name + "': perf: unknown field '" + key + "'");
  }
  return perf;
}

ArchProfile parse_profile(const std::string& file, const std::string& name, const YAML::Node& node) {
  if (!node.IsMap()) fail(file, node, "profile '" + name + "' must be a mapping");
  static const std::set<std::string> fields = {"chips", "mesh", "dram_bytes", "l1_bytes_per_core",
                                               "core_grid", "dtypes", "source", "perf"};
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!fields.count(key)) fail(file, kv.first, "profile '" + name + "': unknown field '" + key + "'");
  }
  for (const std::string& f : fields) {
    if (!node[f]) fail(file, node, "profile '" + name + "': missing field '" + f + "'");
  }
  ArchProfile p;
  p.name = name;
  p.chip.arch = name;
  p.chips = static_cast<int>(positive_int(file, node["chips"], "chips"));
  p.mesh_shape = int_list(file, node["mesh"], "mesh", 2);
  if (p.mesh_shape[0] * p.mesh_shape[1] != p.chips) {
    fail(file, node["mesh"], "profile '" + name + "': mesh " + std::to_string(p.mesh_shape[0]) + "x" +
                                 std::to_string(p.mesh_shape[1]) + " does not hold " + std::to_string(p.chips) +
                                 " chips");
  }
  p.chip.dram_bytes = positive_int(file, node["dram_bytes"], "dram_bytes");
  p.chip.l1_bytes_per_core = positive_int(file, node["l1_bytes_per_core"], "l1_bytes_per_core");
  const std::vector<int64_t> grid = int_list(file, node["core_grid"], "core_grid", 2);
  p.chip.core_rows = static_cast<int>(grid[0]);
  p.chip.core_cols = static_cast<int>(grid[1]);
  const YAML::Node dtypes = node["dtypes"];
  if (!dtypes.IsSequence() || dtypes.size() == 0) fail(file, dtypes, "dtypes must be a non-empty list");
  for (const YAML::Node& d : dtypes) {
    try {
      p.dtypes.push_back(parse_dtype(d.as<std::string>()));
    } catch (const std::exception& e) {
      fail(file, d, std::string("dtypes: ") + e.what());
    }
  }
  p.source = node["source"].as<std::string>();
  p.chip.perf = parse_perf(file, name, node["perf"]);
  return p;
}

}  // namespace

std::string ArchProfile::mesh_text() const {
  return std::to_string(mesh_shape.at(0)) + "x" + std::to_string(mesh_shape.at(1));
}

std::string default_arch_profiles_path() {
  if (const char* env = std::getenv("MESHTEST_ARCH_PROFILES"); env != nullptr && *env != '\0') return env;
  if (std::filesystem::exists(MESHTEST_ARCH_PROFILES_FILE)) return MESHTEST_ARCH_PROFILES_FILE;
  // An installed meshtest: PREFIX/bin/meshtest reads PREFIX/share/meshtest/arch_profiles.yaml.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path installed = exe.parent_path().parent_path() / "share/meshtest/arch_profiles.yaml";
  return !ec && std::filesystem::exists(installed) ? installed.string() : MESHTEST_ARCH_PROFILES_FILE;
}

std::vector<ArchProfile> parse_arch_profiles(const std::string& yaml_text, const std::string& file_name) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ParseError(file_name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": " + e.msg);
  }
  if (!root.IsMap() || !root["profiles"] || !root["profiles"].IsMap()) {
    fail(file_name, root, "expected a top-level 'profiles:' mapping");
  }
  std::vector<ArchProfile> out;
  std::set<std::string> seen;
  for (const auto& kv : root["profiles"]) {
    const std::string name = kv.first.as<std::string>();
    if (!seen.insert(name).second) fail(file_name, kv.first, "duplicate profile '" + name + "'");
    out.push_back(parse_profile(file_name, name, kv.second));
  }
  return out;
}

std::vector<ArchProfile> load_arch_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path + ": cannot read arch profiles");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_arch_profiles(buf.str(), path);
}

ArchProfile arch_profile(const std::string& name) {
  const std::string path = default_arch_profiles_path();
  std::string known;
  for (ArchProfile& p : load_arch_profiles(path)) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ParseError(path + ": no arch profile '" + name + "'; profiles: " + known);
}

}  // namespace meshtest::runtime
