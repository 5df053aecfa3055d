// Collecting the native model zoo must stay cheap (no graphs, no weights):
//  - ZooDiscover: scan <build>/models, open every loader.so, list every
//    variant's info (what `meshtest collect` does before the matrix);
//  - ZooListInfos: variants() + info() on loaders already opened.
// Figures are printed by Google Benchmark; nothing here asserts on time.
#include <benchmark/benchmark.h>

#include <string>

#include "discovery/discovery.h"

namespace {

using namespace meshtest;

const std::string kRoot = std::string(MESHTEST_BINARY_DIR) + "/models";

void ZooDiscover(benchmark::State& state) {
  size_t variants = 0;
  for (auto _ : state) {
    const discovery::Discovery d = discovery::discover({kRoot});
    variants = 0;
    for (const auto& l : d.loaders) variants += l.variants.size();
    benchmark::DoNotOptimize(variants);
  }
  state.counters["variants"] = static_cast<double>(variants);
}
BENCHMARK(ZooDiscover)->Unit(benchmark::kMillisecond);

void ZooListInfos(benchmark::State& state) {
  const discovery::Discovery d = discovery::discover({kRoot});
  size_t variants = 0;
  for (auto _ : state) {
    variants = 0;
    for (const auto& l : d.loaders) {
      for (const std::string& v : l.loader->variants()) {
        benchmark::DoNotOptimize(l.loader->info(v));
        ++variants;
      }
    }
  }
  state.counters["variants"] = static_cast<double>(variants);
}
BENCHMARK(ZooListInfos)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
