// The one table of vector-Jacobian rules: every op of MESHTEST_OPS is listed
// with its rule or its reason for having none (see Differentiability in
// compiler/autodiff.h). An op missing here is Unclassified: autodiff refuses
// it on a gradient path and tests/autodiff fails until it is listed.
#include "compiler/autodiff.h"
#include "compiler/autodiff/vjp.h"

namespace meshtest::compiler {

namespace {

struct RuleRow {
  Differentiability kind;
  autodiff::VjpRule rule;
};

RuleRow rule_row(OpKind kind) {
  using D = Differentiability;
  namespace ad = autodiff;
  switch (kind) {
    case OpKind::Relu:
    case OpKind::Gelu:
    case OpKind::Tanh:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Neg:
    case OpKind::Sigmoid:
    case OpKind::Silu:
    case OpKind::Erf:
    case OpKind::Sin:
    case OpKind::Cos:
      return {D::Rule, ad::vjp_unary};
    case OpKind::Add:
    case OpKind::Sub:
      return {D::Rule, ad::vjp_add_sub};
    case OpKind::Mul:
      return {D::Rule, ad::vjp_mul};
    case OpKind::Div:
      return {D::Rule, ad::vjp_div};
    case OpKind::Maximum:
      return {D::Rule, ad::vjp_maximum};
    case OpKind::Cast:
      return {D::Rule, ad::vjp_cast};
    case OpKind::Matmul:
      return {D::Rule, ad::vjp_matmul};
    case OpKind::Linear:
      return {D::Rule, ad::vjp_linear};
    case OpKind::Conv2d:
      return {D::Rule, ad::vjp_conv2d};
    case OpKind::MaxPool2d:
      return {D::Rule, ad::vjp_max_pool2d};
    case OpKind::AvgPool2d:
      return {D::Rule, ad::vjp_avg_pool2d};
    case OpKind::GlobalAvgPool2d:
      return {D::Rule, ad::vjp_global_avg_pool2d};
    case OpKind::BatchNorm:
      return {D::Rule, ad::vjp_batch_norm};
    case OpKind::LayerNorm:
      return {D::Rule, ad::vjp_layer_norm};
    case OpKind::Softmax:
      return {D::Rule, ad::vjp_softmax};
    case OpKind::Embedding:
      return {D::Rule, ad::vjp_embedding};
    case OpKind::Reshape:
      return {D::Rule, ad::vjp_reshape};
    case OpKind::Transpose:
      return {D::Rule, ad::vjp_transpose};
    case OpKind::Concat:
      return {D::Rule, ad::vjp_concat};
    case OpKind::Slice:
      return {D::Rule, ad::vjp_slice};
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
      return {D::Rule, ad::vjp_reduce_sum_mean};
    case OpKind::ReduceMax:
      return {D::Rule, ad::vjp_reduce_max};
    case OpKind::RmsNorm:
      return {D::Rule, ad::vjp_rms_norm};
    case OpKind::Sdpa:
      return {D::Rule, ad::vjp_sdpa};
    // No operands, or piecewise constant: zero gradient.
    case OpKind::Constant:
    case OpKind::TopkMask:
    case OpKind::Greater:
      return {D::NonDifferentiable, nullptr};
    // Made after autodiff: its own backward ops, the shard pass's collectives.
    case OpKind::AllGather:
    case OpKind::ReduceScatter:
    case OpKind::AllReduce:
    case OpKind::AllToAll:
    case OpKind::ShardSlice:
    case OpKind::EmbeddingShard:
    case OpKind::Conv2dBackwardInput:
    case OpKind::Conv2dBackwardWeight:
    case OpKind::MaxPool2dBackward:
    case OpKind::AvgPool2dBackward:
    case OpKind::EmbeddingBackward:
    case OpKind::SliceBackward:
      return {D::AfterAutodiff, nullptr};
    default:
      break;
  }
  return {D::Unclassified, nullptr};
}

}  // namespace

Differentiability differentiability(OpKind kind) { return rule_row(kind).kind; }

bool has_vjp_rule(OpKind kind) { return rule_row(kind).rule != nullptr; }

namespace autodiff {
VjpRule find_vjp_rule(OpKind kind) { return rule_row(kind).rule; }
}  // namespace autodiff

}  // namespace meshtest::compiler
