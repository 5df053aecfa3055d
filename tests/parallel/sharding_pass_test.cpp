// The shard pass: Megatron attention split by heads with one all_reduce,
// local shapes, fallbacks that gather (recorded, and still correct on a
// mesh), and spec errors.
#include <gtest/gtest.h>

#include <cmath>

#include "backend/simulated_backend.h"
#include "comparators/metrics.h"
#include "compiler/sharding.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "runtime/reference/reference_executor.h"
#include "tests/parallel/graph_queries.h"

namespace meshtest::compiler {
namespace {

constexpr int64_t kB = 2, kS = 8, kH = 32, kHeads = 4, kD = kH / kHeads;

// Self-attention: q/k/v column-parallel, heads split, o row-parallel.
Graph attention(bool softmax_over_heads = false) {
  GraphBuilder b("attn");
  const ValueId x = b.input("x", DType::F32, {kB, kS, kH});
  auto w = [&](const char* name, uint64_t seed) { return b.weight(name, {kH, kH}, Initializer::normal(0, 0.2, seed)); };
  auto heads = [&](ValueId t) { return b.transpose(b.reshape(t, {kB, kS, kHeads, kD}), {0, 2, 1, 3}); };
  const ValueId q = heads(b.linear(x, w("wq", 1)));
  const ValueId k = heads(b.linear(x, w("wk", 2)));
  const ValueId v = heads(b.linear(x, w("wv", 3)));
  ValueId scores = b.div(b.matmul(q, b.transpose(k, {0, 1, 3, 2})), b.constant(std::sqrt(double(kD))));
  scores = b.softmax(scores, softmax_over_heads ? 1 : -1);
  const ValueId ctx = b.reshape(b.transpose(b.matmul(scores, v), {0, 2, 1, 3}), {kB, kS, kH});
  b.output("y", b.linear(ctx, w("wo", 4)));
  return b.finish();
}

ShardingRequest megatron(int64_t n) {
  ShardingRequest r;
  r.mesh = {{1, n}, {"batch", "model"}};
  for (const char* c : {"wq", "wk", "wv"}) r.specs[c] = {{"model"}, {}};
  r.specs["wo"] = {{}, {"model"}};
  return r;
}

using testing::count;

TEST(ShardPass, AttentionSplitsByHeadsWithOneAllReduce) {
  Graph g = attention();
  const ShardingPlan plan = shard_graph(g, megatron(4));
  verify_graph(g);
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  EXPECT_EQ(count(g, OpKind::AllReduce), 1);
  EXPECT_EQ(count(g, OpKind::AllGather), 0);
  EXPECT_EQ(plan.collectives, 1);
  EXPECT_EQ(g.type(g.find_param("wq")->value).shape, (Shape{kH / 4, kH}));
  EXPECT_EQ(g.type(g.find_param("wo")->value).shape, (Shape{kH, kH / 4}));
  EXPECT_EQ(g.type(g.find_param("x")->value).shape, (Shape{kB, kS, kH}));
  EXPECT_FALSE(g.find_param("wq")->init.has_value());  // the shard is cut at load time
  EXPECT_EQ(plan.params.size(), 4u);
  EXPECT_TRUE(plan.outputs.empty());  // y is replicated after the all_reduce
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::Softmax) {
      EXPECT_EQ(g.type(op.output).shape, (Shape{kB, kHeads / 4, kS, kS}));
    }
  }
}

// Runs the graph on a mesh and compares with the unsharded reference.
double mesh_pcc(const Graph& global, const ShardingRequest& request) {
  const std::map<std::string, Tensor> in = {{"x", random_normal({kB, kS, kH}, 11)}};
  auto simulated = backend::make_simulated_backend({}, 8);
  backend::CompileRequest r;
  r.sharding = std::make_shared<ShardingRequest>(request);
  auto exe = simulated->compile(global, r);
  backend::MemoryStats stats;
  const std::vector<Tensor> device = simulated->execute(*exe, in, stats);
  return comparators::compare_tensors("y", device[0], runtime::run_reference(global, in)[0], {}).pcc;
}

TEST(ShardPass, NoRuleGathersRecordsAndStaysCorrect) {
  Graph g = attention(/*softmax_over_heads=*/true);
  const Graph global = g;
  const ShardingPlan plan = shard_graph(g, megatron(2));
  // The gathered scores then meet head-split values: later ops gather too.
  ASSERT_GE(plan.fallbacks.size(), 1u);
  EXPECT_NE(plan.fallbacks[0].find("softmax"), std::string::npos) << plan.fallbacks[0];
  EXPECT_NE(plan.fallbacks[0].find("gathered to replicated"), std::string::npos);
  EXPECT_GE(count(g, OpKind::AllGather), 1);
  EXPECT_GT(mesh_pcc(global, megatron(2)), 0.99);
  EXPECT_GT(mesh_pcc(attention(), megatron(4)), 0.99);
}

// Operands whole where the result is split are cut in place (shard_slice),
// never gathered: a replicated weight added to a split activation, the bias
// of a column-parallel linear, a matmul contracting a split dim with a whole
// one. The mesh result matches the reference.
TEST(ShardPass, WholeOperandsAreSlicedInPlace) {
  GraphBuilder b("slices");
  const ValueId x = b.input("x", DType::F32, {kB, kS, kH});
  const ValueId g = b.input("g", DType::F32, {kB, kS, 2 * kH});
  const ValueId pos = b.weight("pos", {kS, kH}, Initializer::normal(0, 0.2, 5));
  const ValueId h = b.linear(b.add(x, pos), b.weight("wq", {kH, kH}, Initializer::normal(0, 0.2, 6)),
                             b.weight("bq", {kH}, Initializer::normal(0, 0.2, 7)));
  b.output("y", h);
  b.output("m", b.matmul(g, b.weight("table", {2 * kH, kH}, Initializer::normal(0, 0.2, 8))));
  const Graph global = b.finish();
  ShardingRequest r;
  r.mesh = {{1, 2}, {"batch", "model"}};
  r.specs["x"] = {{}, {"model"}, {}};  // split over the sequence: pos [S, H] must follow
  r.specs["g"] = {{}, {}, {"model"}};
  Graph local = global;
  const ShardingPlan plan = shard_graph(local, r);
  verify_graph(local);
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  EXPECT_EQ(count(local, OpKind::AllGather), 0);
  EXPECT_EQ(count(local, OpKind::ShardSlice), 2);  // pos for the add, table for the matmul
  EXPECT_EQ(count(local, OpKind::AllReduce), 1);   // the matmul's partial sums
  auto simulated = backend::make_simulated_backend({}, 2);
  backend::CompileRequest request;
  request.sharding = std::make_shared<ShardingRequest>(r);
  auto exe = simulated->compile(global, request);
  const std::map<std::string, Tensor> in = {{"x", random_normal({kB, kS, kH}, 21)},
                                            {"g", random_normal({kB, kS, 2 * kH}, 22)}};
  backend::MemoryStats stats;
  const std::vector<Tensor> device = simulated->execute(*exe, in, stats);
  const std::vector<Tensor> golden = runtime::run_reference(global, in);
  for (size_t i = 0; i < device.size(); ++i) {
    EXPECT_GT(comparators::compare_tensors("out", device[i], golden[i], {}).pcc, 0.99) << i;
  }
}

TEST(ShardPass, SpecErrors) {
  Graph g = attention();
  ShardingRequest bad_axis = megatron(2);
  bad_axis.specs["wq"] = {{"tensor"}, {}};
  EXPECT_THROW(shard_graph(g, bad_axis), CompileError);
  // 32 rows do not split over 3 chips: kept replicated, recorded, still runs.
  Graph h = attention();
  ShardingRequest uneven = megatron(3);
  const ShardingPlan plan = shard_graph(h, uneven);
  EXPECT_FALSE(plan.fallbacks.empty());
  EXPECT_NE(plan.fallbacks_text().find("param 'wq'"), std::string::npos);
  verify_graph(h);
}

TEST(ShardPass, TextForms) {
  const Mesh m = parse_mesh("2x4:rows,cols");
  EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(m.axis_names, (std::vector<std::string>{"rows", "cols"}));
  const NamedPartitionSpec s = parse_partition_spec("rows+cols,_");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (std::vector<std::string>{"rows", "cols"}));
  EXPECT_TRUE(s[1].empty());
  EXPECT_THROW(parse_mesh("2x4:rows"), ParseError);
  EXPECT_THROW(parse_partition_spec("a,,b"), ParseError);
}

}  // namespace
}  // namespace meshtest::compiler
