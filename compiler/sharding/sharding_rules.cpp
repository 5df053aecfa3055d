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
  // StableHLO elementwise ops (53..95): same-shape ops keep their operand's
  // split, broadcasting ones follow the operands like the binary family.
  t.set({K::Abs, K::Sign, K::Floor, K::Ceil, K::RoundAfz, K::RoundEven, K::Expm1, K::Log1p, K::Cbrt, K::Tan, K::Not,
         K::Popcnt, K::Clz, K::IsFinite, K::Sinh, K::Cosh, K::Asin, K::Acos, K::Atan, K::Asinh, K::Acosh, K::Atanh,
         K::Erfc, K::ErfInv, K::Lgamma, K::Digamma, K::ReducePrecision},
        same_split_rule);
  t.set({K::Minimum, K::Power, K::Remainder, K::Atan2, K::And, K::Or, K::Xor, K::ShiftLeft, K::ShiftRightArithmetic,
         K::ShiftRightLogical, K::NextAfter, K::Compare, K::Select, K::Clamp},
        broadcast_rule);
  t.set(K::Iota, constant_rule);
  t.none({K::BitcastConvert}, "replicated only: a width-changing bitcast adds or drops a dim");
  // StableHLO structural ops (96..110).
  t.none({K::BroadcastInDim, K::Pad, K::Reverse, K::DynamicSlice, K::DynamicUpdateSlice, K::Gather, K::Scatter,
          K::DotGeneral, K::Convolution, K::Reduce, K::ReduceArg, K::ReduceWindow, K::SelectAndScatter,
          K::SortPermutation, K::TakeAlongAxis},
         "replicated only: StableHLO structural ops have no sharding rule yet");
  return t;
}

}  // namespace

const OpTable<ShardingRule>& sharding_rules() {
  static const OpTable<ShardingRule> table = build();
  return table;
}

}  // namespace meshtest::compiler::sharding
