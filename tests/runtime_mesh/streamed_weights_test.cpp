// Streamed weights (CompileRequest::stream_weights, docs/explanation/streamed-weights.md): the golden on a lazy graph and the chips fed weight by
// weight give bit-identical outputs and the same DRAM figures as with every
// weight loaded, on one chip and on meshes (split and replicated weights, bf16
// and bfp8_b, trace replay, weights lazy or held by the graph); a chip still runs out of DRAM when its weights do not fit,
// though it never holds them all; the per-execution cache frees a weight once
// every chip is done with it; and a deep model whose weights exceed a host
// memory limit runs streamed but not loaded (the memory probe, in a child).
#include <gtest/gtest.h>

#include <cstring>

#include "backend/simulated_backend.h"
#include "compiler/compile.h"
#include "core/error.h"
#include "core/rng.h"
#include "runtime/mesh/mesh_runtime.h"
#include "runtime/reference/reference_executor.h"
#include "tests/common/run_command.h"
#include "tests/runtime_mesh/deep_mlp.h"

namespace meshtest {
namespace {

constexpr int kLayers = 6;
constexpr int64_t kWidth = 128, kTokens = 8;

std::map<std::string, Tensor> inputs() { return {{"x", random_normal({kTokens, kWidth}, 7)}}; }

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

struct Execution {
  std::vector<Tensor> outputs;
  backend::MemoryStats stats;
};

// Two executions (the second replays the trace), as the pipeline's perf mode does.
std::vector<Execution> run_device(const Graph& g, std::shared_ptr<const ShardingRequest> sharding,
                                  bool stream, DType weight_dtype) {
  auto simulated = backend::make_simulated_backend(runtime::ChipSpec{}, 8);
  backend::CompileRequest request;
  request.settings.weight_dtype = weight_dtype;
  request.sharding = std::move(sharding);
  request.enable_trace = true;
  request.stream_weights = stream;
  auto exe = simulated->compile(g, request);
  std::vector<Execution> runs(2);
  for (Execution& e : runs) e.outputs = simulated->execute(*exe, inputs(), e.stats);
  return runs;
}

TEST(StreamedWeights, GoldenOnLazyWeightsIsBitIdenticalToLoadedWeights) {
  const Graph lazy = testing::deep_mlp(kLayers, kWidth, kTokens);
  Graph loaded = lazy;
  loaded.materialize_weights();
  const std::vector<Tensor> streamed = runtime::run_reference(lazy, inputs());
  const std::vector<Tensor> eager = runtime::run_reference(loaded, inputs());
  ASSERT_EQ(streamed.size(), 1u);
  EXPECT_TRUE(same_bits(streamed[0], eager[0]));
  for (const Param* p : lazy.weights()) EXPECT_FALSE(p->data.defined()) << p->name << " was kept";
}

TEST(StreamedWeights, DeviceOutputsAndMemoryAreBitIdenticalOnEveryMesh) {
  const Graph g = testing::deep_mlp(kLayers, kWidth, kTokens);
  Graph held = g;  // weights made at load, chips converting on read (auto inference, small models)
  held.materialize_weights();
  const std::vector<std::shared_ptr<const ShardingRequest>> meshes = {
      nullptr, testing::deep_mlp_megatron(kLayers, {{1, 2}, {"batch", "model"}}),
      testing::deep_mlp_megatron(kLayers, {{2, 4}, {"batch", "model"}})};
  for (const auto& [sharding, dtype] : {std::pair{meshes[0], DType::BF16}, std::pair{meshes[1], DType::BF16},
                                        std::pair{meshes[2], DType::BF16}, std::pair{meshes[1], DType::BFP8_B}}) {
    SCOPED_TRACE((sharding ? sharding->mesh.text() : "1x1") + " " + std::string(dtype_name(dtype)));
    const std::vector<Execution> eager = run_device(g, sharding, false, dtype);
    for (const Graph* source : {&g, const_cast<const Graph*>(&held)}) {
      SCOPED_TRACE(source == &g ? "lazy weights" : "held weights");
      const std::vector<Execution> streamed = run_device(*source, sharding, true, dtype);
      for (size_t run = 0; run < eager.size(); ++run) {
        SCOPED_TRACE("execution " + std::to_string(run));
        ASSERT_EQ(streamed[run].outputs.size(), 1u);
        EXPECT_TRUE(same_bits(streamed[run].outputs[0], eager[run].outputs[0]));
        EXPECT_EQ(streamed[run].stats.per_chip_peak_dram_bytes, eager[run].stats.per_chip_peak_dram_bytes);
        EXPECT_EQ(streamed[run].stats.device_bytes_leaked, 0);
        EXPECT_EQ(streamed[run].stats.bytes_moved_between_chips, eager[run].stats.bytes_moved_between_chips);
      }
    }
  }
}

// A weight source over a compiled one-chip program that counts what it makes.
class CountingSource : public runtime::WeightSource {
 public:
  CountingSource(const Graph& g, const DeviceProgram& p) : graph_(g), program_(p) {}
  Tensor whole(int32_t id) const override {
    ++wholes;
    return compiler::load_weight(graph_, program_, program_.buffers.at(static_cast<size_t>(id)));
  }
  Tensor for_chip(const Tensor& whole, size_t, int32_t) const override { return whole; }
  mutable int wholes = 0;

 private:
  const Graph& graph_;
  const DeviceProgram& program_;
};

TEST(StreamedWeights, AChipStillRunsOutOfDramWhenItsWeightsDoNotFit) {
  const Graph g = testing::deep_mlp(kLayers, kWidth, kTokens);
  const compiler::CompileResult compiled = compiler::compile_program(g, {});
  runtime::MeshProgram mp;
  mp.mesh.shape = {1, 1};
  mp.program = compiled.program;
  mp.streamed = std::make_shared<CountingSource>(g, mp.program);
  runtime::ChipSpec roomy;
  runtime::MeshRuntime fits(roomy, false);
  ASSERT_NO_THROW(fits.execute(mp, inputs()));
  const int64_t planned = fits.last_stats().peak_dram_bytes.at(0);
  EXPECT_GE(planned, kLayers * kWidth * kWidth * 2);  // every bf16 weight counted resident
  // Room for two weights and the activations at a time, not for all six.
  runtime::ChipSpec small;
  small.dram_bytes = 3 * kWidth * kWidth * 2 + 4 * kTokens * kWidth * 2 + 16 * 1024;
  ASSERT_LT(small.dram_bytes, planned);
  runtime::MeshRuntime tight(small, false);
  try {
    tight.execute(mp, inputs());
    FAIL() << "a chip whose weights do not fit ran";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("uploading weight"), std::string::npos) << e.what();
  }
}

TEST(StreamedWeights, TheCacheMakesAWeightOnceAndFreesItWhenEveryChipIsDone) {
  const Graph g = testing::deep_mlp(2, kWidth, kTokens);
  const compiler::CompileResult compiled = compiler::compile_program(g, {});
  int32_t weight = -1;
  for (const DeviceBuffer& b : compiled.program.buffers) {
    if (b.kind == BufferKind::Weight) weight = b.id;
  }
  ASSERT_GE(weight, 0);
  auto source = std::make_shared<CountingSource>(g, compiled.program);
  runtime::StreamedWeights cache(source, 3);
  std::vector<runtime::ChipWeightFeed> feeds;
  for (size_t c = 0; c < 3; ++c) feeds.push_back(cache.feed(c));
  const Tensor a = feeds[0].fetch(weight);
  const Tensor b = feeds[2].fetch(weight);
  EXPECT_EQ(source->wholes, 1);
  EXPECT_EQ(a.raw_data(), b.raw_data());  // replicated: one storage for every chip
  feeds[0].done(weight);
  feeds[1].done(weight);  // received the result from elsewhere, never read it
  EXPECT_GT(cache.held_bytes(), 0);
  feeds[2].done(weight);
  EXPECT_EQ(cache.held_bytes(), 0);
}

#if !defined(__SANITIZE_ADDRESS__)
// The probe (streamed_weights_memory_probe.cpp) limits its own data segment
// to 320 MB above what it holds at start, then runs the golden and one chip on
// 48 layers of 2048x2048 f32 weights (768 MB): exit 0 when it ran, 3 when the
// host allocation failed. Streamed it peaks at 59 MiB alone, but with several
// probes at once on the 2 cores it passed 160 MB (not yet explained: freeing
// lags under contention?), so the budget is 320 MB, still under half the
// eager run's weights.
TEST(StreamedWeights, ADeepModelBeyondTheHostLimitRunsOnlyStreamed) {
  const std::string probe = std::string(MESHTEST_BINARY_DIR) + "/tests/runtime_mesh/streamed_weights_memory_probe";
  const testing::CommandResult streamed = testing::run_command(probe + " stream 320");
  EXPECT_EQ(streamed.status, 0) << streamed.output;
  const testing::CommandResult eager = testing::run_command(probe + " eager 320");
  EXPECT_EQ(eager.status, 3) << eager.output;
}
#endif

}  // namespace
}  // namespace meshtest
