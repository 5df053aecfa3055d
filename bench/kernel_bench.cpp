// Kernel figures for bench/run, each next to the anchor it is read against
// (bench/run prints the ratios): weight generation vs memset (into a reused
// buffer, and as a new tensor vs a new zero-filled one), f32 -> bf16
// conversion vs memcpy, the comparators vs memcpy of the same pairs, the
// device's bf16 GEMM vs oneDNN called directly, the golden's f32 GEMM vs
// OpenBLAS (where libopenblas is installed). MESHTEST_BENCH_QUICK=1 shrinks
// the comparators' 100 M pairs to 10 M.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>

#include "comparators/metrics.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "core/simd.h"
#include "runtime/device/device_kernels.h"
#include "runtime/reference/reference_kernels.h"

#ifdef MESHTEST_BENCH_OPENBLAS
extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                            int lda, const float* b, int ldb, float beta, float* c, int ldc);
#endif

namespace meshtest {
namespace {

constexpr int64_t kWeightElements = int64_t{64} << 20;  // 256 MB of f32

int64_t comparator_pairs() { return std::getenv("MESHTEST_BENCH_QUICK") ? 10'000'000 : 100'000'000; }

// ---- weight generation (GB/s of output) vs memset ----

void BM_Memset(benchmark::State& state) {
  Tensor t(DType::F32, {kWeightElements});
  for (auto _ : state) {
    std::memset(t.raw_data(), 1, t.nbytes());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(t.nbytes()));
}

// Anchor of a new tensor's generation: a new tensor zero-filled (its storage
// comes from core/buffer_pool.h, so after the first iteration the pages are
// recycled, as a streamed weight's are, and no longer faulted in).
void BM_NewZeroedTensor(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    const Tensor t(DType::F32, {kWeightElements});
    benchmark::DoNotOptimize(t.raw_data());
    bytes = t.nbytes();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

// The generator alone: a stream written in parallel into a reused buffer (anchor: memset).
void BM_WeightGenInto(benchmark::State& state) {
  Tensor t(DType::F32, {kWeightElements});
  float* out = t.data<float>();
  uint64_t seed = 1;
  for (auto _ : state) {
    ++seed;
    parallel_ranges(kWeightElements, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
      simd::fill_normal(seed, begin, end - begin, 0.0f, 0.02f, out + begin);
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(t.nbytes()));
}

void BM_WeightGen(benchmark::State& state) {
  const DType dtype = state.range(0) == 0 ? DType::F32 : DType::BF16;
  size_t bytes = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    const Tensor t = random_normal({kWeightElements}, ++seed, 0.0f, 0.02f, dtype);
    benchmark::DoNotOptimize(t.raw_data());
    bytes = t.nbytes();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.SetLabel(std::string(dtype_name(dtype)) + ", " + std::string(simd::isa_name(simd::best_isa())) +
                 ", new tensor each time (pool-recycled pages)");
}

// ---- f32 -> bf16 (GB/s read) vs memcpy of the same bytes ----

void BM_Memcpy(benchmark::State& state) {
  const Tensor src = random_normal({kWeightElements}, 3);
  Tensor dst(DType::F32, {kWeightElements});
  for (auto _ : state) {
    std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(src.nbytes()));
}

void BM_ConvertToBf16(benchmark::State& state) {
  const Tensor src = random_normal({kWeightElements}, 3);
  for (auto _ : state) {
    const Tensor b = src.to(DType::BF16);
    benchmark::DoNotOptimize(b.raw_data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(src.nbytes()));
  state.SetLabel(std::string(simd::isa_name(simd::best_isa())));
}

// ---- comparators over N pairs vs memcpy of the same 2 N floats ----

struct Pairs {
  Tensor golden, device;
  Pairs() : golden(random_normal({comparator_pairs()}, 5)), device(random_normal({comparator_pairs()}, 6)) {}
};
const Pairs& pairs() {
  static const Pairs p;
  return p;
}

void BM_MemcpyPairs(benchmark::State& state) {
  const Pairs& p = pairs();
  Tensor dst(DType::F32, {2 * comparator_pairs()});
  auto* out = static_cast<char*>(dst.raw_data());
  for (auto _ : state) {
    std::memcpy(out, p.golden.raw_data(), p.golden.nbytes());
    std::memcpy(out + p.golden.nbytes(), p.device.raw_data(), p.device.nbytes());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * comparator_pairs());
}

void BM_Comparators(benchmark::State& state) {
  const Pairs& p = pairs();
  const comparators::ComparisonConfig config;
  for (auto _ : state) {
    benchmark::DoNotOptimize(comparators::compare_tensors("out", p.device, p.golden, config));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * comparator_pairs());
  state.SetLabel("compare_tensors, default checks, " + std::to_string(comparator_pairs()) + " pairs");
}

// ---- GEMM: args M, N, K ----

void set_gemm_counters(benchmark::State& state) {
  const double flops = 2.0 * static_cast<double>(state.range(0)) * static_cast<double>(state.range(1)) *
                       static_cast<double>(state.range(2));
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_DeviceMatmulBf16(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Tensor a = random_normal({m, k}, 1, 0.0f, 1.0f, DType::BF16);
  const Tensor b = random_normal({k, n}, 2, 0.0f, 1.0f, DType::BF16);
  Tensor out(DType::BF16, {m, n});
  for (auto _ : state) runtime::device_kernels::matmul(a, b, out);
  set_gemm_counters(state);
}

void BM_OneDnnMatmulBf16(benchmark::State& state) {
  using dnnl::memory;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc a_md({m, k}, memory::data_type::bf16, memory::format_tag::ab);
  const memory::desc b_md({k, n}, memory::data_type::bf16, memory::format_tag::ab);
  const memory::desc c_md({m, n}, memory::data_type::bf16, memory::format_tag::ab);
  const dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), engine));
  const Tensor a = random_normal({m, k}, 1, 0.0f, 1.0f, DType::BF16);
  const Tensor b = random_normal({k, n}, 2, 0.0f, 1.0f, DType::BF16);
  Tensor c(DType::BF16, {m, n});
  memory am(a_md, engine, const_cast<void*>(a.raw_data())), bm(b_md, engine, const_cast<void*>(b.raw_data())),
      cm(c_md, engine, c.raw_data());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
  }
  set_gemm_counters(state);
}

void BM_GoldenGemmF32(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Tensor a = random_normal({m, k}, 1), b = random_normal({k, n}, 2);
  Tensor c(DType::F32, {m, n});
  for (auto _ : state) {
    runtime::reference::gemm(a.data<float>(), k, b.data<float>(), n, false, c.data<float>(), n, m, n, k);
  }
  set_gemm_counters(state);
}

#ifdef MESHTEST_BENCH_OPENBLAS
void BM_OpenBlasSgemm(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1)), k = static_cast<int>(state.range(2));
  const Tensor a = random_normal({m, k}, 1), b = random_normal({k, n}, 2);
  Tensor c(DType::F32, {m, n});
  for (auto _ : state) {
    cblas_sgemm(101 /*row major*/, 111 /*no trans*/, 111, m, n, k, 1.0f, a.data<float>(), k, b.data<float>(), n, 0.0f,
                c.data<float>(), n);
  }
  set_gemm_counters(state);
}
BENCHMARK(BM_OpenBlasSgemm)->Args({2048, 2048, 2048})->Args({128, 3072, 768})->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

BENCHMARK(BM_Memset)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NewZeroedTensor)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WeightGenInto)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WeightGen)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ConvertToBf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MemcpyPairs)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Comparators)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DeviceMatmulBf16)->Args({2048, 2048, 2048})->Args({128, 3072, 768})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OneDnnMatmulBf16)->Args({2048, 2048, 2048})->Args({128, 3072, 768})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GoldenGemmF32)->Args({2048, 2048, 2048})->Args({128, 3072, 768})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace meshtest

BENCHMARK_MAIN();
