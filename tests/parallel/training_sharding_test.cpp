// The shard pass on training graphs (the compiler's autodiff output):
// tensor parallel keeps every weight gradient in its weight's split, data
// parallel sums each chip's partial weight gradients with all_reduce and
// falls back nowhere; both run on a mesh and match the unsharded graph. A
// training-form batch norm is SyncBatchNorm under data parallel: its
// statistics are the global batch's (all-reduced sums), not each chip's.
#include <gtest/gtest.h>

#include <cmath>

#include "backend/simulated_backend.h"
#include "comparators/metrics.h"
#include "compiler/autodiff.h"
#include "compiler/sharding.h"
#include "core/graph_builder.h"
#include "core/mutation.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"
#include "models/common/batch_norm.h"
#include "runtime/reference/reference_executor.h"
#include "tests/parallel/graph_queries.h"

namespace meshtest::compiler {
namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kB = 4, kS = 8, kH = 32, kHeads = 4, kD = kH / kHeads;

ValueId weight(GraphBuilder& b, const std::string& name, const Shape& shape, double stddev) {
  return b.weight(name, shape, Initializer::normal(0.0, stddev, hash_seed(name)));
}

// Self-attention block with a gelu MLP: Megatron column/row-parallel linears.
Graph transformer_block() {
  GraphBuilder b("block");
  const ValueId x = b.input("x", DType::F32, {kB, kS, kH});
  auto heads = [&](ValueId t) { return b.transpose(b.reshape(t, {kB, kS, kHeads, kD}), {0, 2, 1, 3}); };
  const ValueId q = heads(b.linear(x, weight(b, "wq", {kH, kH}, 0.2)));
  const ValueId k = heads(b.linear(x, weight(b, "wk", {kH, kH}, 0.2)));
  const ValueId v = heads(b.linear(x, weight(b, "wv", {kH, kH}, 0.2)));
  const ValueId scores = b.softmax(b.div(b.matmul(q, b.transpose(k, {0, 1, 3, 2})), b.constant(std::sqrt(double(kD)))), -1);
  const ValueId ctx = b.reshape(b.transpose(b.matmul(scores, v), {0, 2, 1, 3}), {kB, kS, kH});
  const ValueId h = b.add(x, b.linear(ctx, weight(b, "wo", {kH, kH}, 0.2)));
  const ValueId up = b.op(OpKind::Gelu, {b.linear(h, weight(b, "w1", {2 * kH, kH}, 0.2))});
  b.output("y", b.add(h, b.linear(up, weight(b, "w2", {kH, 2 * kH}, 0.2))));
  return b.finish();
}

// Conv, batch norm, relu, pools and a linear head (every backward op kind).
Graph conv_net() {
  GraphBuilder b("conv_net");
  const ValueId x = b.input("x", DType::F32, {kB, 3, 8, 8});
  ValueId h = b.op(OpKind::Conv2d, {x, weight(b, "conv.weight", {8, 3, 3, 3}, 0.2)}, {{"padding", Ints{1, 1}}});
  h = b.op(OpKind::BatchNorm,
           {h, weight(b, "bn.weight", {8}, 0.1), weight(b, "bn.bias", {8}, 0.1), weight(b, "bn.running_mean", {8}, 0.1),
            b.weight("bn.running_var", {8}, Initializer::uniform(0.5, 1.5, 7))},
           {{"eps", 1e-5}});
  h = b.op(OpKind::MaxPool2d, {b.relu(h)}, {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}});
  h = b.op(OpKind::AvgPool2d, {h}, {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}});
  h = b.reshape(b.op(OpKind::GlobalAvgPool2d, {h}), {kB, 8});
  b.output("logits", b.linear(h, weight(b, "fc.weight", {10, 8}, 0.3), weight(b, "fc.bias", {10}, 0.1)));
  return b.finish();
}

ShardingRequest megatron() {
  ShardingRequest r;
  r.mesh = {{1, 2}, {"batch", "model"}};
  for (const char* c : {"wq", "wk", "wv", "w1"}) r.specs[c] = {{"model"}, {}};
  for (const char* c : {"wo", "w2"}) r.specs[c] = {{}, {"model"}};
  return r;
}

// Batch split over both axes of a 1x2 mesh, for the inputs and the seed.
ShardingRequest data_parallel(const TrainingGraph& t) {
  ShardingRequest r;
  r.mesh = {{1, 2}, {"rows", "cols"}};
  for (const Param* p : t.graph.inputs()) {
    NamedPartitionSpec spec(t.graph.type(p->value).shape.size());
    spec[0] = {"rows", "cols"};
    r.specs[p->name] = spec;
  }
  return r;
}

// Random float inputs; integer inputs (token ids) cycle through 0..9.
std::map<std::string, Tensor> feeds(const Graph& g) {
  std::map<std::string, Tensor> in;
  uint64_t seed = 3;
  for (const Param* p : g.inputs()) {
    const TensorType& t = g.type(p->value);
    if (t.dtype != DType::I64) {
      in[p->name] = random_normal(t.shape, ++seed);
      continue;
    }
    std::vector<int64_t> ids(static_cast<size_t>(shape_numel(t.shape)));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7) % 10);
    in[p->name] = Tensor::from_i64(t.shape, ids);
  }
  return in;
}

// Runs the training graph on the mesh and on the reference; every output agrees.
void expect_mesh_matches_reference(const TrainingGraph& t, const ShardingRequest& request) {
  auto simulated = backend::make_simulated_backend({}, 2);
  backend::CompileRequest r;
  r.sharding = std::make_shared<ShardingRequest>(request);
  auto exe = simulated->compile(t.graph, r);
  const auto in = feeds(t.graph);
  backend::MemoryStats stats;
  const std::vector<Tensor> device = simulated->execute(*exe, in, stats);
  const std::vector<Tensor> golden = runtime::run_reference(t.graph, in);
  ASSERT_EQ(device.size(), golden.size());
  for (size_t i = 0; i < device.size(); ++i) {
    const std::string& name = t.graph.outputs[i].name;
    EXPECT_EQ(device[i].shape(), golden[i].shape()) << name;
    EXPECT_GT(comparators::compare_tensors(name, device[i], golden[i], {}).pcc, 0.99) << name;
  }
}

using testing::count;

// The kind of op that makes the output `name` of `g`.
OpKind producer(const Graph& g, const std::string& name) {
  for (const GraphOutput& o : g.outputs) {
    if (o.name != name) continue;
    for (const Op& op : g.ops) {
      if (op.output == o.value) return op.kind;
    }
  }
  ADD_FAILURE() << "no op makes output " << name;
  return OpKind::Constant;
}

TEST(TrainingSharding, TensorParallelGradientsKeepTheirWeightsSplit) {
  const TrainingGraph t = build_training_graph(transformer_block(), "y");
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, megatron());
  verify_graph(local);
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  for (const auto& [name, spec] : megatron().specs) {
    ASSERT_TRUE(plan.params.count(name)) << name;
    ASSERT_TRUE(plan.outputs.count(std::string(kGradientPrefix) + name)) << name << " gradient was gathered";
    EXPECT_EQ(plan.outputs.at(std::string(kGradientPrefix) + name), plan.params.at(name)) << name;
  }
  expect_mesh_matches_reference(t, megatron());
}

// A vocabulary-split embedding table: the forward looks up each chip's rows
// (embedding_shard + all_reduce), and the table's gradient, whole after
// backward, is asked back into the table's split (output_specs) and cut in
// place.
TEST(TrainingSharding, AGradientAskedIntoItsWeightsSplitLeavesInIt) {
  GraphBuilder b("embed");
  const ValueId ids = b.input("ids", DType::I64, {kB, kS});
  const ValueId h = b.op(OpKind::Embedding, {ids, weight(b, "table", {10, kH}, 0.5)});
  b.output("y", b.linear(h, weight(b, "w1", {2 * kH, kH}, 0.2)));
  const TrainingGraph t = build_training_graph(b.finish(), "y");
  ShardingRequest r;
  r.mesh = {{1, 2}, {"batch", "model"}};
  r.specs["table"] = {{"model"}, {}};
  r.specs["w1"] = {{"model"}, {}};
  for (const auto& [name, spec] : std::map<std::string, NamedPartitionSpec>(r.specs)) {
    r.output_specs[std::string(kGradientPrefix) + name] = spec;
  }
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, r);
  verify_graph(local);
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();  // vocab-parallel lookup
  EXPECT_EQ(count(local, OpKind::EmbeddingShard), 1);
  for (const char* name : {"table", "w1"}) {
    ASSERT_TRUE(plan.outputs.count(std::string(kGradientPrefix) + name)) << name;
    EXPECT_EQ(plan.outputs.at(std::string(kGradientPrefix) + name), plan.params.at(name)) << name;
  }
  EXPECT_EQ(producer(local, std::string(kGradientPrefix) + "table"), OpKind::ShardSlice);
  expect_mesh_matches_reference(t, r);
}

TEST(TrainingSharding, DataParallelAllReducesEveryWeightGradient) {
  const TrainingGraph t = build_training_graph(conv_net(), "logits");
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, data_parallel(t));
  verify_graph(local);
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  EXPECT_EQ(count(local, OpKind::AllGather), 0);
  // Every weight gradient leaves replicated: summed over the chips.
  for (const std::string& name : t.with_gradient) {
    EXPECT_FALSE(plan.outputs.count(std::string(kGradientPrefix) + name)) << name;
  }
  // The GEMM-shaped weight gradients are each one partial result all-reduced
  // (the statistics' gradients share all-reduced sums).
  for (const char* name : {"conv.weight", "fc.weight"}) {
    EXPECT_EQ(producer(local, std::string(kGradientPrefix) + name), OpKind::AllReduce) << name;
  }
  expect_mesh_matches_reference(t, data_parallel(t));
}

// Conv, a training-form batch norm (models/common/batch_norm.h), relu and a
// linear head; the updated running statistics are kept outputs.
TrainingGraph conv_net_training_batch_norm() {
  GraphBuilder b("conv_net_train");
  models::LayerContext ctx{b, "conv_net_train", DType::F32, true};
  const ValueId x = b.input("x", DType::F32, {kB, 3, 8, 8});
  ValueId h = b.op(OpKind::Conv2d, {x, weight(b, "conv.weight", {8, 3, 3, 3}, 0.2)}, {{"padding", Ints{1, 1}}});
  h = b.relu(models::batch_norm(ctx, "bn", h));
  h = b.reshape(b.op(OpKind::GlobalAvgPool2d, {h}), {kB, 8});
  b.output("logits", b.linear(h, weight(b, "fc.weight", {10, 8}, 0.3)));
  const std::string prefix = sdk::kUpdatedBufferPrefix;
  return build_training_graph(b.finish(), "logits", {prefix + "bn.running_mean", prefix + "bn.running_var"});
}

// SyncBatchNorm: each chip's sums over its samples meet in all_reduce, so the
// normalisation, the input gradient and the running statistics are the global
// batch's, as the unsharded golden computes them. With one chip's sums left
// out of the all_reduce (per-chip statistics, DDP without SyncBatchNorm) the
// running statistics no longer match.
TEST(TrainingSharding, DataParallelBatchNormReducesItsStatisticsAcrossChips) {
  const TrainingGraph t = conv_net_training_batch_norm();
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, data_parallel(t));
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  EXPECT_EQ(count(local, OpKind::AllGather), 0);
  for (const std::string& kept : t.kept_outputs) EXPECT_FALSE(plan.outputs.count(kept)) << kept << " leaves whole";
  // Statistics (sum of x, sum of squares) and the weight gradients meet in all_reduce.
  EXPECT_GE(count(local, OpKind::AllReduce), 2 + static_cast<int>(t.with_gradient.size()));
  expect_mesh_matches_reference(t, data_parallel(t));

  const ScopedMutant per_chip(MutantId::AllReduceOneChipShort);
  auto simulated = backend::make_simulated_backend({}, 2);
  backend::CompileRequest r;
  r.sharding = std::make_shared<ShardingRequest>(data_parallel(t));
  const auto in = feeds(t.graph);
  backend::MemoryStats stats;
  const std::vector<Tensor> device = simulated->execute(*simulated->compile(t.graph, r), in, stats);
  const std::vector<Tensor> golden = runtime::run_reference(t.graph, in);
  const size_t mean_index = t.graph.outputs.size() - 2;
  EXPECT_GT(comparators::compare_tensors("running_mean", device[mean_index], golden[mean_index], {}).rel_l2, 0.05);
}

TEST(TrainingSharding, DataParallelTransformerNeedsNoFallback) {
  const TrainingGraph t = build_training_graph(transformer_block(), "y");
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, data_parallel(t));
  EXPECT_TRUE(plan.fallbacks.empty()) << plan.fallbacks_text();
  expect_mesh_matches_reference(t, data_parallel(t));
}

// FSDP-style training: the batch and every weight split over the same axes;
// each weight's gradient (partial sums over the batch) must leave in its
// weight's split, so the all_reduce + shard_slice pair the rules make is
// merged into one reduce_scatter (half a ring all_reduce's traffic).
TEST(TrainingSharding, GradientsOfWeightsSplitLikeTheBatchAreReduceScattered) {
  const TrainingGraph t = build_training_graph(transformer_block(), "y");
  ShardingRequest r = data_parallel(t);
  for (const char* name : {"wq", "wk", "wv", "wo", "w1", "w2"}) {
    r.specs[name] = {{"rows", "cols"}, {}};
    r.output_specs[std::string(kGradientPrefix) + name] = r.specs[name];
  }
  Graph local = t.graph;
  const ShardingPlan plan = shard_graph(local, r);
  verify_graph(local);
  // The attention projections' gradients are partial sums over the batch
  // (w1's comes out split already, w2's is cut from a whole one).
  for (const char* name : {"wq", "wk", "wv", "wo"}) {
    EXPECT_EQ(producer(local, std::string(kGradientPrefix) + name), OpKind::ReduceScatter) << name;
  }
  // No all_reduce is left feeding a shard_slice over the same axes.
  for (const Op& op : local.ops) {
    if (op.kind != OpKind::ShardSlice) continue;
    for (const Op& in : local.ops) {
      if (in.output == op.inputs[0]) {
        EXPECT_FALSE(in.kind == OpKind::AllReduce && in.attrs.get_string("axes") == op.attrs.get_string("axes"));
      }
    }
  }
  int64_t collectives = 0;
  for (const Op& op : local.ops) {
    collectives += op.kind == OpKind::AllGather || op.kind == OpKind::AllReduce || op.kind == OpKind::ReduceScatter ||
                   op.kind == OpKind::AllToAll || op.kind == OpKind::ShardSlice;
  }
  EXPECT_EQ(plan.collectives, collectives);  // the merged pairs are counted once
  expect_mesh_matches_reference(t, r);
}

}  // namespace
}  // namespace meshtest::compiler
