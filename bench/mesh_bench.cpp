// Mesh overhead: a small Llama-shaped transformer run tensor-parallel on an
// 8-chip mesh (1x8, Megatron specs) against the same model on one chip, on
// the simulated backend; and the 8-chip run with and without the dispatch
// trace (the first execution records, later ones replay). Per iteration: one
// execution (weights loaded once, before timing). Target: 8 chips <= 1.5x.
#include <benchmark/benchmark.h>
#include <omp.h>

#include "backend/simulated_backend.h"
#include "bench/llama_shaped_graph.h"
#include "compiler/sharding.h"
#include "core/rng.h"

namespace meshtest::bench {
namespace {

// Arg 0: a small transformer (GEMMs dominate); arg 1: a tiny one, where
// per-op dispatch and synchronization dominate (what the trace saves).
LlamaShape transformer(int64_t size) {
  return size == 0 ? LlamaShape{4, 512, 8, 8, 1408, 2048, 128} : LlamaShape{4, 64, 8, 8, 128, 256, 32};
}

std::shared_ptr<const ShardingRequest> megatron_1x8(const Graph& g) {
  auto r = std::make_shared<ShardingRequest>();
  r->mesh = {{1, 8}, {"batch", "model"}};
  auto ends = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (const Param* p : g.weights()) {
    for (const char* col : {"q_proj.weight", "k_proj.weight", "v_proj.weight", "gate_proj.weight", "up_proj.weight",
                            "lm_head.weight"}) {
      if (ends(p->name, col)) r->specs[p->name] = {{"model"}, {}};
    }
    for (const char* row : {"o_proj.weight", "down_proj.weight"}) {
      if (ends(p->name, row)) r->specs[p->name] = {{}, {"model"}};
    }
  }
  return r;
}

std::map<std::string, Tensor> inputs(const LlamaShape& s) {
  std::vector<int64_t> ids(static_cast<size_t>(s.seq));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 131) % static_cast<size_t>(s.vocab));
  return {{"input_ids", Tensor::from_i64({1, s.seq}, ids)}, {"attention_mask", random_normal({1, 1, s.seq, s.seq}, 3)}};
}

void run(benchmark::State& state, bool mesh, bool trace, int kernel_threads = 0) {
  const int saved_threads = omp_get_max_threads();
  if (kernel_threads > 0) omp_set_num_threads(kernel_threads);
  const LlamaShape shape = transformer(state.range(0));
  Graph g = llama_shaped_graph(shape);
  g.materialize_weights();
  auto simulated = backend::make_simulated_backend({}, 8);
  backend::CompileRequest request;
  if (mesh) request.sharding = megatron_1x8(g);
  request.enable_trace = trace;
  auto exe = simulated->compile(g, request);
  const auto in = inputs(shape);
  backend::MemoryStats stats;
  simulated->execute(*exe, in, stats);  // loads weights; records the trace
  for (auto _ : state) benchmark::DoNotOptimize(simulated->execute(*exe, in, stats));
  state.counters["chips"] = mesh ? 8 : 1;
  state.counters["collectives"] = static_cast<double>(stats.collectives_executed);
  state.counters["MiB_between_chips"] = static_cast<double>(stats.bytes_moved_between_chips) / 1048576.0;
  state.counters["peak_dram_MiB_per_chip"] = static_cast<double>(stats.peak_dram_bytes) / 1048576.0;
  state.counters["fallbacks"] = static_cast<double>(exe->info().sharding_fallbacks.size());
  omp_set_num_threads(saved_threads);
}

void BM_SingleChip(benchmark::State& state) { run(state, false, false); }
// The single chip with one-threaded kernels, as every chip of the mesh runs them.
void BM_SingleChipOneThreadKernels(benchmark::State& state) { run(state, false, false, 1); }
void BM_TensorParallel8(benchmark::State& state) { run(state, true, true); }
void BM_TensorParallel8NoTrace(benchmark::State& state) { run(state, true, false); }

BENCHMARK(BM_SingleChip)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_SingleChipOneThreadKernels)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_TensorParallel8)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_TensorParallel8NoTrace)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace meshtest::bench

BENCHMARK_MAIN();
