// Vector-Jacobian rules of matmul (batch dims unbroadcast), linear (PyTorch
// [N,K] weight layout) and conv2d (through the conv2d_backward_input /
// conv2d_backward_weight ops). Under the vjp_matmul_transposed_operand
// mutant (core/mutation.h) a square operand is used without its transpose.
#include <algorithm>

#include "compiler/autodiff/vjp.h"
#include "core/mutation.h"

namespace meshtest::compiler::autodiff {

namespace {

// The transpose of the last two dims of `x` a matmul gradient needs; the
// vjp_matmul_transposed_operand mutant leaves a square `x` as it is.
ValueId transposed_operand(Emitter& e, ValueId x) {
  const Shape shape = e.shape(x);
  const bool square = shape.size() >= 2 && shape[shape.size() - 1] == shape[shape.size() - 2];
  return square && mutant_active(MutantId::VjpMatmulTransposedOperand) ? x : e.swap_last_two(x);
}

}  // namespace

Grads vjp_matmul(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(2, kNoValue);
  if (ctx.wants(0)) g[0] = e.unbroadcast(e.matmul(ctx.grad, transposed_operand(e, ctx.in(1))), e.shape(ctx.in(0)));
  if (ctx.wants(1)) g[1] = e.unbroadcast(e.matmul(transposed_operand(e, ctx.in(0)), ctx.grad), e.shape(ctx.in(1)));
  return g;
}

// y[..., N] = x[..., K] @ w[N, K]^T + bias[N], with the leading dims flattened to M.
Grads vjp_linear(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(ctx.op.inputs.size(), kNoValue);
  const Shape& x_shape = e.shape(ctx.in(0));
  const int64_t k = x_shape.back();
  const int64_t n = e.shape(ctx.in(1))[0];
  const int64_t m = k == 0 ? shape_numel(e.shape(ctx.grad)) / std::max<int64_t>(n, 1) : shape_numel(x_shape) / k;
  const ValueId dy = e.reshape(ctx.grad, {m, n});
  if (ctx.wants(0)) g[0] = e.reshape(e.matmul(dy, ctx.in(1)), x_shape);
  if (ctx.wants(1)) g[1] = e.matmul(e.swap_last_two(dy), e.reshape(ctx.in(0), {m, k}));
  if (ctx.wants(2)) g[2] = e.reduce_sum(dy, {0}, false);
  return g;
}

Grads vjp_conv2d(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(ctx.op.inputs.size(), kNoValue);
  Attrs geometry;
  for (const char* name : {"stride", "padding", "dilation"}) {
    if (ctx.op.attrs.has(name)) geometry.set(name, ctx.op.attrs.get_ints(name));
  }
  geometry.set("groups", ctx.op.attrs.get_int("groups", 1));
  if (ctx.wants(0)) {
    Attrs a = geometry;
    a.set("input_shape", e.shape(ctx.in(0)));
    g[0] = e.op(OpKind::Conv2dBackwardInput, {ctx.grad, ctx.in(1)}, a);
  }
  if (ctx.wants(1)) {
    Attrs a = geometry;
    a.set("weight_shape", e.shape(ctx.in(1)));
    g[1] = e.op(OpKind::Conv2dBackwardWeight, {ctx.in(0), ctx.grad}, a);
  }
  if (ctx.wants(2)) g[2] = e.reduce_sum(ctx.grad, {0, 2, 3}, false);
  return g;
}

}  // namespace meshtest::compiler::autodiff
