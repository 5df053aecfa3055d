// Benchmarks of the config and collection paths at CI scale:
//  - validating 20,000 test_config entries spread over 13 generated files
//    (load, schema checks, stale-id check against the matrix ids);
//  - collecting 100,000 ids from a synthetic matrix (1,000 loaders x 100
//    variants): matrix with markers, -m selection, one line per id.
// Each has an anchor bench/run reads it against: parsing the same YAML files
// with yaml-cpp alone, and formatting, sorting and joining 100,000 id strings.
// Figures are printed by Google Benchmark; nothing here asserts on time.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/cross_checks.h"
#include "config/test_config.h"
#include "runner/collection/matrix.h"
#include "runner/collection/selection.h"

namespace {

namespace fs = std::filesystem;
using namespace meshtest;

constexpr int kFiles = 13;
constexpr int kEntries = 20000;
constexpr int kLoaders = 1000;
constexpr int kVariantsPerLoader = 100;

std::string loader_dir(int i) { return "family_" + std::to_string(i) + "/causal_lm/native"; }
std::string variant(int j) { return "variant_" + std::to_string(j); }
std::string case_id(int i, int j) { return loader_dir(i) + "-" + variant(j) + "-single_device-inference"; }

// Entry k of the generated config: a realistic mix of statuses and fields.
std::string entry_yaml(int k) {
  const int i = k / kVariantsPerLoader * 5 % kLoaders, j = k % kVariantsPerLoader;
  std::string e = "  " + case_id(i, j) + ":\n";
  switch (k % 4) {
    case 0: e += "    status: EXPECTED_PASSING\n    markers: [push]\n"; break;
    case 1: e += "    status: KNOWN_FAILURE_XFAIL\n    reason: \"PCC drop after layer 11\"\n"
                 "    bringup_status: INCORRECT_RESULT\n"; break;
    case 2: e += "    status: EXPECTED_PASSING\n    required_pcc: 0.97\n    supported_archs: [n150, p150, n300]\n"; break;
    default: e += "    status: NOT_SUPPORTED_SKIP\n    reason: too large for one chip\n"
                  "    arch_overrides:\n      n300-llmbox:\n        status: EXPECTED_PASSING\n"; break;
  }
  return e;
}

class GeneratedConfig {
 public:
  GeneratedConfig() : dir_(fs::temp_directory_path() / ("meshtest_bench_config_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    std::vector<std::string> texts(kFiles, "test_config:\n");
    for (int k = 0; k < kEntries; ++k) texts[k % kFiles] += entry_yaml(k);
    for (int f = 0; f < kFiles; ++f) std::ofstream(dir_ / ("file_" + std::to_string(f) + ".yaml")) << texts[f];
  }
  ~GeneratedConfig() { fs::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

discovery::Discovery synthetic_discovery() {
  discovery::Discovery d;
  d.loaders.resize(kLoaders);
  for (int i = 0; i < kLoaders; ++i) {
    d.loaders[i].dir = loader_dir(i);
    for (int j = 0; j < kVariantsPerLoader; ++j) {
      d.loaders[i].variants.push_back({"family_" + std::to_string(i), variant(j), i % 2 ? "red" : "generality", "lm"});
    }
  }
  return d;
}

std::vector<std::string> all_case_ids() {
  std::vector<std::string> ids;
  for (int i = 0; i < kLoaders; ++i) {
    for (int j = 0; j < kVariantsPerLoader; ++j) ids.push_back(case_id(i, j));
  }
  return ids;
}

void BM_ValidateConfig20kEntries13Files(benchmark::State& state) {
  const GeneratedConfig generated;
  const std::vector<std::string> ids = all_case_ids();
  size_t problems = 0, entries = 0;
  for (auto _ : state) {
    std::vector<config::Diagnostic> diags;
    const config::TestConfig c = config::load_test_config(generated.dir(), diags);
    config::check_stale_ids(c, ids, config::Severity::Error, diags);
    problems = diags.size();
    entries = c.entries.size();
    benchmark::DoNotOptimize(c);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["problems"] = static_cast<double>(problems);
  state.counters["entries/s"] = benchmark::Counter(static_cast<double>(entries), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ValidateConfig20kEntries13Files)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Anchor: the same files parsed by yaml-cpp, nothing checked.
void BM_YamlParse20kEntries13Files(benchmark::State& state) {
  const GeneratedConfig generated;
  for (auto _ : state) {
    for (int f = 0; f < kFiles; ++f) {
      benchmark::DoNotOptimize(YAML::LoadFile(generated.dir() + "/file_" + std::to_string(f) + ".yaml"));
    }
  }
}
BENCHMARK(BM_YamlParse20kEntries13Files)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Collect100kIds(benchmark::State& state) {
  const GeneratedConfig generated;
  std::vector<config::Diagnostic> diags;
  const config::TestConfig config = config::load_test_config(generated.dir(), diags);
  const discovery::Discovery discovery = synthetic_discovery();
  size_t collected = 0, selected = 0;
  for (auto _ : state) {
    const std::vector<runner::TestCase> cases = runner::build_matrix(discovery, config, {"n150"});
    const runner::Selection s = runner::select_cases(cases, {"", "n150 and nightly and not known_failure_xfail", {}});
    std::string out;
    for (const runner::TestCase* c : s.selected) out += c->id + "\n";
    collected = cases.size();
    selected = s.selected.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["cases"] = static_cast<double>(collected);
  state.counters["selected"] = static_cast<double>(selected);
}
BENCHMARK(BM_Collect100kIds)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Anchor: the 100,000 id strings formatted, sorted and joined one per line.
void BM_FormatSortJoin100kIds(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<std::string> ids = all_case_ids();
    std::sort(ids.begin(), ids.end());
    std::string out;
    for (const std::string& id : ids) out += id + "\n";
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_FormatSortJoin100kIds)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
