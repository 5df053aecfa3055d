// The one table of vector-Jacobian rules: every op is listed with its rule,
// as non-differentiable, or with its reason for having none (see
// Differentiability in compiler/autodiff.h). An op missing here is
// Unclassified: autodiff refuses it on a gradient path and tests fail until
// it is listed.
#include "compiler/autodiff.h"
#include "compiler/autodiff/vjp.h"

namespace meshtest::compiler {

namespace {

VjpEntry rule(autodiff::VjpRule r) { return VjpEntry{Differentiability::Rule, r}; }

OpTable<VjpEntry> build() {
  using K = OpKind;
  namespace ad = autodiff;
  OpTable<VjpEntry> t("VJP rule");
  t.set(unary_elementwise_ops(), rule(ad::vjp_unary));
  t.set({K::Add, K::Sub}, rule(ad::vjp_add_sub));
  t.set(K::Mul, rule(ad::vjp_mul));
  t.set(K::Div, rule(ad::vjp_div));
  t.set(K::Maximum, rule(ad::vjp_maximum));
  t.set(K::Cast, rule(ad::vjp_cast));
  t.set(K::Matmul, rule(ad::vjp_matmul));
  t.set(K::Linear, rule(ad::vjp_linear));
  t.set(K::Conv2d, rule(ad::vjp_conv2d));
  t.set(K::MaxPool2d, rule(ad::vjp_max_pool2d));
  t.set(K::AvgPool2d, rule(ad::vjp_avg_pool2d));
  t.set(K::GlobalAvgPool2d, rule(ad::vjp_global_avg_pool2d));
  t.set(K::BatchNorm, rule(ad::vjp_batch_norm));
  t.set(K::LayerNorm, rule(ad::vjp_layer_norm));
  t.set(K::Softmax, rule(ad::vjp_softmax));
  t.set(K::Embedding, rule(ad::vjp_embedding));
  t.set(K::Reshape, rule(ad::vjp_reshape));
  t.set(K::Transpose, rule(ad::vjp_transpose));
  t.set(K::Concat, rule(ad::vjp_concat));
  t.set(K::Slice, rule(ad::vjp_slice));
  t.set({K::ReduceSum, K::ReduceMean}, rule(ad::vjp_reduce_sum_mean));
  t.set(K::ReduceMax, rule(ad::vjp_reduce_max));
  t.set(K::RmsNorm, rule(ad::vjp_rms_norm));
  t.set(K::Sdpa, rule(ad::vjp_sdpa));
  // No operands, or piecewise constant: zero gradient.
  t.set({K::Constant, K::TopkMask, K::Greater}, VjpEntry{Differentiability::NonDifferentiable, nullptr});
  t.none({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice, K::EmbeddingShard},
         "collectives and shard-local ops are made by the shard pass, after autodiff");
  t.none({K::Conv2dBackwardInput, K::Conv2dBackwardWeight, K::MaxPool2dBackward, K::AvgPool2dBackward,
          K::EmbeddingBackward, K::SliceBackward},
         "backward ops are made by autodiff; training graphs are not differentiated twice");
  // The ops StableHLO brought.
  t.none(stablehlo_primitive_ops(), "StableHLO primitive: no gradient rule yet");
  return t;
}

}  // namespace

const OpTable<VjpEntry>& vjp_rules() {
  static const OpTable<VjpEntry> table = build();
  return table;
}

Differentiability differentiability(OpKind kind) {
  if (const VjpEntry* entry = vjp_rules().find(kind)) return entry->kind;
  return vjp_rules().listed(kind) ? Differentiability::AfterAutodiff : Differentiability::Unclassified;
}

bool has_vjp_rule(OpKind kind) {
  const VjpEntry* entry = vjp_rules().find(kind);
  return entry != nullptr && entry->rule != nullptr;
}

namespace autodiff {
VjpRule find_vjp_rule(OpKind kind) {
  const VjpEntry* entry = vjp_rules().find(kind);
  return entry != nullptr ? entry->rule : nullptr;
}
}  // namespace autodiff

}  // namespace meshtest::compiler
