// The table of sharding rules: every op with its rule (rule files per family
// in this folder) or the reason it has none.
#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

namespace {

OpTable<ShardingRule> build() {
  using K = OpKind;
  OpTable<ShardingRule> t("sharding rule");
  t.set(unary_elementwise_ops(), same_split_rule);
  t.set(K::Cast, same_split_rule);
  t.set(binary_elementwise_ops(), broadcast_rule);
  t.set(K::Greater, broadcast_rule);
  t.set(K::Constant, constant_rule);
  t.set(K::Linear, linear_rule);
  t.set(K::Matmul, matmul_rule);
  t.set(K::Embedding, embedding_rule);
  t.set(K::EmbeddingBackward, embedding_backward_rule);
  t.set(K::Reshape, reshape_rule);
  t.set(K::Transpose, transpose_rule);
  t.set(K::Concat, concat_rule);
  t.set({K::Softmax, K::TopkMask, K::Slice}, whole_axis_rule);
  t.set(K::SliceBackward, slice_backward_rule);
  t.set({K::LayerNorm, K::RmsNorm}, norm_rule);
  t.set({K::ReduceSum, K::ReduceMean, K::ReduceMax}, reduce_rule);
  t.set(K::Sdpa, attention_rule);
  t.set({K::Conv2d, K::MaxPool2d, K::AvgPool2d, K::GlobalAvgPool2d, K::BatchNorm, K::Conv2dBackwardInput,
         K::AvgPool2dBackward},
        data_parallel_rule);
  t.set(K::MaxPool2dBackward, data_parallel_two_operand_rule);
  t.set(K::Conv2dBackwardWeight, weight_gradient_rule);
  t.none({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice, K::EmbeddingShard},
         "collectives and shard-local ops are made by the shard pass itself: a graph is sharded once");
  return t;
}

}  // namespace

const OpTable<ShardingRule>& sharding_rules() {
  static const OpTable<ShardingRule> table = build();
  return table;
}

}  // namespace meshtest::compiler::sharding
