// Mesh execution end to end through the simulated backend: a Megatron MLP
// block compiled by the shard pass and run on 2-chip and 8-chip meshes
// matches the CPU reference, moves the expected bytes, leaks nothing, keeps
// per-chip memory within per-chip DRAM (and fails with a per-chip OOM when it
// does not), and the trace replays to bit-identical results.
#include <gtest/gtest.h>

#include <cstring>

#include "backend/simulated_backend.h"
#include "comparators/metrics.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

constexpr int64_t kHidden = 64, kFfn = 256, kTokens = 32;

// x -> linear(w_up) -> gelu -> linear(w_down) -> + x
Graph mlp_block() {
  GraphBuilder b("mlp");
  const ValueId x = b.input("x", DType::F32, {kTokens, kHidden});
  const ValueId up = b.weight("w_up", {kFfn, kHidden}, Initializer::normal(0, 0.1, 1));
  const ValueId down = b.weight("w_down", {kHidden, kFfn}, Initializer::normal(0, 0.1, 2));
  const ValueId h = b.op(OpKind::Gelu, {b.linear(x, up)});
  b.output("y", b.add(b.linear(h, down), x));
  return b.finish();
}

std::shared_ptr<ShardingRequest> megatron(Mesh mesh) {
  auto r = std::make_shared<ShardingRequest>();
  r->mesh = std::move(mesh);
  r->specs["w_up"] = {{"model"}, {}};
  r->specs["w_down"] = {{}, {"model"}};
  return r;
}

struct MeshRun {
  std::vector<Tensor> outputs;
  backend::MemoryStats stats;
  backend::CompileInfo info;
};

std::map<std::string, Tensor> inputs() { return {{"x", random_normal({kTokens, kHidden}, 7)}}; }

MeshRun run_on(const Graph& g, std::shared_ptr<const ShardingRequest> sharding, runtime::ChipSpec chip = {},
           int executions = 1) {
  auto simulated = backend::make_simulated_backend(chip, 32);
  backend::CompileRequest request;
  request.sharding = std::move(sharding);
  request.enable_trace = true;
  auto exe = simulated->compile(g, request);
  MeshRun r;
  for (int i = 0; i < executions; ++i) r.outputs = simulated->execute(*exe, inputs(), r.stats);
  r.info = exe->info();
  return r;
}

double pcc(const Tensor& a, const Tensor& b) {
  return comparators::compare_tensors("y", a, b, {}).pcc;
}

TEST(MeshExecution, MegatronBlockMatchesTheReferenceOnEveryMesh) {
  const Graph g = mlp_block();
  const std::vector<Tensor> golden = runtime::run_reference(g, inputs());
  const MeshRun single = run_on(g, nullptr);
  for (const Mesh& mesh : {Mesh{{1, 2}, {"batch", "model"}}, Mesh{{2, 4}, {"batch", "model"}},
                           Mesh{{8}, {"model"}}}) {
    SCOPED_TRACE(mesh.text());
    const MeshRun r = run_on(g, megatron(mesh));
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_GT(pcc(r.outputs[0], golden[0]), 0.999);
    EXPECT_EQ(r.info.mesh, mesh.text());
    EXPECT_TRUE(r.info.sharding_fallbacks.empty());
    EXPECT_EQ(r.stats.collectives_executed, 1);  // one all_reduce for the block
    const int64_t m = mesh.shape.back();
    const int64_t groups = mesh.size() / m;
    // bf16 [32, 64] partial sums, ring all-reduce: 2 (m - 1) buffers per group.
    EXPECT_EQ(r.stats.bytes_moved_between_chips, groups * 2 * (m - 1) * kTokens * kHidden * 2);
    EXPECT_EQ(r.stats.device_bytes_leaked, 0);
    ASSERT_EQ(static_cast<int64_t>(r.stats.per_chip_peak_dram_bytes.size()), mesh.size());
    // Weights are split: every chip holds less than the single chip did.
    for (int64_t b : r.stats.per_chip_peak_dram_bytes) EXPECT_LT(b, single.stats.peak_dram_bytes);
  }
}

TEST(MeshExecution, TraceReplayIsBitIdentical) {
  const Graph g = mlp_block();
  auto simulated = backend::make_simulated_backend({}, 8);
  backend::CompileRequest request;
  request.sharding = megatron({{1, 8}, {"batch", "model"}});
  request.enable_trace = true;
  auto exe = simulated->compile(g, request);
  backend::MemoryStats first, second;
  const std::vector<Tensor> a = simulated->execute(*exe, inputs(), first);
  const std::vector<Tensor> b = simulated->execute(*exe, inputs(), second);
  ASSERT_EQ(a[0].nbytes(), b[0].nbytes());
  EXPECT_EQ(std::memcmp(a[0].raw_data(), b[0].raw_data(), a[0].nbytes()), 0);
  EXPECT_EQ(first.collectives_executed, second.collectives_executed);
  EXPECT_EQ(second.device_bytes_leaked, 0);
}

TEST(MeshExecution, PerChipDramIsTheLimit) {
  const Graph g = mlp_block();
  runtime::ChipSpec small;
  small.dram_bytes = 40 * 1024;  // the whole block needs more; a 1/8 shard fits
  EXPECT_THROW(run_on(g, nullptr, small), OutOfMemoryError);
  const MeshRun r = run_on(g, megatron({{1, 8}, {"batch", "model"}}), small);
  for (int64_t b : r.stats.per_chip_peak_dram_bytes) EXPECT_LE(b, small.dram_bytes);
}

TEST(MeshExecution, DataParallelSplitsTheBatch) {
  const Graph g = mlp_block();
  auto dp = std::make_shared<ShardingRequest>();
  dp->mesh = {{2, 4}, {"rows", "cols"}};
  dp->specs["x"] = {{"rows", "cols"}, {}};
  const MeshRun r = run_on(g, dp);
  EXPECT_GT(pcc(r.outputs[0], runtime::run_reference(g, inputs())[0]), 0.999);
  EXPECT_EQ(r.stats.collectives_executed, 0);  // weights replicated, batch split: no exchange
  EXPECT_EQ(r.outputs[0].shape(), (Shape{kTokens, kHidden}));
}

TEST(MeshExecution, MeshLargerThanTheSystemIsACompileError) {
  auto simulated = backend::make_simulated_backend({}, 2);
  backend::CompileRequest request;
  request.sharding = megatron({{1, 8}, {"batch", "model"}});
  EXPECT_THROW(simulated->compile(mlp_block(), request), CompileError);
}

}  // namespace
}  // namespace meshtest
