// Compile-time benchmarks (printed, never asserted): compiling a 16-layer
// Llama-3.2-1B-shaped graph with lazy weights at -O1, and the same compile
// answered by the on-disk compile cache (key computation + entry load).
// Targets: compile < 200 ms, cache hit < 10% of that.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "bench/llama_shaped_graph.h"
#include "compiler/compile_cache.h"

namespace {

using namespace meshtest;

const Graph& llama_1b() {
  static const Graph graph = bench::llama_shaped_graph(bench::LlamaShape::llama_3_2_1b());
  return graph;
}

compiler::CompileOptions options() {
  compiler::CompileOptions o;
  o.optimization_level = 1;
  o.dram_capacity_bytes = int64_t{12} << 30;
  return o;
}

void BM_CompileLlama1B16Layers(benchmark::State& state) {
  const Graph& graph = llama_1b();
  int64_t instructions = 0;
  for (auto _ : state) {
    const compiler::CompileResult r = compiler::compile_program(graph, options());
    instructions = static_cast<int64_t>(r.program.instrs.size());
    benchmark::DoNotOptimize(r.program.planned_peak_dram_bytes);
  }
  state.counters["graph_ops"] = static_cast<double>(graph.ops.size());
  state.counters["device_ops"] = static_cast<double>(instructions);
}
BENCHMARK(BM_CompileLlama1B16Layers)->Unit(benchmark::kMillisecond);

void BM_CompileCacheHitLlama1B16Layers(benchmark::State& state) {
  const Graph& graph = llama_1b();
  const auto dir = std::filesystem::temp_directory_path() / "meshtest-compile-bench-cache";
  const compiler::CompileCache cache(dir.string());
  const std::string key = compiler::compile_cache_key(graph, options(), "n150 1x1");
  cache.store(key, compiler::compile_program(graph, options()));
  std::string warning;
  for (auto _ : state) {
    const std::string k = compiler::compile_cache_key(graph, options(), "n150 1x1");
    auto hit = cache.load(k, warning);
    if (!hit) state.SkipWithError("cache miss");
    benchmark::DoNotOptimize(hit);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CompileCacheHitLlama1B16Layers)->Unit(benchmark::kMillisecond);

// The key alone: hashing the graph, its weights identity and the options.
void BM_CompileCacheKeyLlama1B16Layers(benchmark::State& state) {
  const Graph& graph = llama_1b();
  for (auto _ : state) benchmark::DoNotOptimize(compiler::compile_cache_key(graph, options(), "n150 1x1"));
}
BENCHMARK(BM_CompileCacheKeyLlama1B16Layers)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
