// Vector-Jacobian rules of the neural-network ops: pooling (through the
// max/avg_pool2d_backward ops), batch_norm (with the mean and var it is given, see
// autodiff.h), layer_norm, softmax, and the composites rms_norm and sdpa.
// Normalization rules recompute the statistics from x. Mutants
// (core/mutation.h): vjp_softmax_x1_5, vjp_layer_norm_no_mean_term.
#include "compiler/autodiff/vjp.h"
#include "core/mutation.h"

namespace meshtest::compiler::autodiff {

namespace {

Attrs pool_geometry(const Attrs& attrs) {
  Attrs a;
  for (const char* name : {"kernel", "stride", "padding"}) {
    if (attrs.has(name)) a.set(name, attrs.get_ints(name));
  }
  return a;
}

// y * (dy - sum(dy * y, axis)): the softmax Jacobian applied to dy.
ValueId softmax_grad(Emitter& e, ValueId y, ValueId dy, int64_t axis) {
  return e.mul(y, e.sub(dy, e.reduce_sum(e.mul(dy, y), {axis}, true)));
}

// A per-channel [C] vector as [C,1,1], broadcasting against [N,C,H,W].
ValueId per_channel(Emitter& e, ValueId v) { return e.reshape(v, {e.shape(v)[0], 1, 1}); }
// Sum of an [N,C,H,W] tensor over N, H, W: [C].
ValueId channel_sum(Emitter& e, ValueId v) { return e.reduce_sum(v, {0, 2, 3}, false); }

}  // namespace

Grads vjp_max_pool2d(VjpContext& ctx) {
  return {ctx.e.op(OpKind::MaxPool2dBackward, {ctx.in(0), ctx.grad}, pool_geometry(ctx.op.attrs))};
}

Grads vjp_avg_pool2d(VjpContext& ctx) {
  Attrs a = pool_geometry(ctx.op.attrs);
  a.set("count_include_pad", ctx.op.attrs.get_int("count_include_pad", 1));
  a.set("input_shape", ctx.e.shape(ctx.in(0)));
  return {ctx.e.op(OpKind::AvgPool2dBackward, {ctx.grad}, a)};
}

Grads vjp_global_avg_pool2d(VjpContext& ctx) {
  const TensorType& x = ctx.e.type(ctx.in(0));
  const double area = static_cast<double>(x.shape[2] * x.shape[3]);
  return {ctx.e.expand(ctx.grad, x, area > 0 ? 1.0 / area : 0.0)};
}

// y = (x - mean) * r * scale + bias, r = 1 / sqrt(var + eps), per channel.
Grads vjp_batch_norm(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const ValueId x = ctx.in(0), scale = ctx.in(1), mean = ctx.in(3), var = ctx.in(4);
  const ValueId dy = ctx.grad;
  const ValueId r = e.op(OpKind::Rsqrt, {e.plus(var, ctx.op.attrs.get_float("eps", 1e-5))});
  const ValueId scale_r = e.mul(scale, r);
  Grads g(5, kNoValue);
  if (ctx.wants(0)) g[0] = e.mul(dy, per_channel(e, scale_r));
  const bool centered_needed = ctx.wants(1) || ctx.wants(4);
  const ValueId centered = centered_needed ? channel_sum(e, e.mul(dy, e.sub(x, per_channel(e, mean)))) : kNoValue;
  if (ctx.wants(1)) g[1] = e.mul(centered, r);
  const ValueId dbias = ctx.wants(2) || ctx.wants(3) ? channel_sum(e, dy) : kNoValue;
  if (ctx.wants(2)) g[2] = dbias;
  if (ctx.wants(3)) g[3] = e.neg(e.mul(dbias, scale_r));
  if (ctx.wants(4)) g[4] = e.scale(e.mul(e.mul(centered, scale_r), e.mul(r, r)), -0.5);
  return g;
}

// Over the last dim D: xh = (x - mu) r, y = xh * gamma + beta;
// dx = r (g - mean(g) - xh mean(g xh)), g = dy * gamma.
Grads vjp_layer_norm(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const ValueId x = ctx.in(0), gamma = ctx.in(1);
  const ValueId dy = ctx.grad;
  const Shape d_shape{e.shape(x).back()};
  const ValueId centered = e.sub(x, e.reduce_mean(x, {-1}, true));
  const ValueId r =
      e.op(OpKind::Rsqrt,
           {e.plus(e.reduce_mean(e.mul(centered, centered), {-1}, true), ctx.op.attrs.get_float("eps", 1e-5))});
  const ValueId xh = e.mul(centered, r);
  Grads g(3, kNoValue);
  if (ctx.wants(0)) {
    const ValueId gy = e.mul(dy, gamma);
    const ValueId centered_gy =
        mutant_active(MutantId::VjpLayerNormNoMeanTerm) ? gy : e.sub(gy, e.reduce_mean(gy, {-1}, true));
    const ValueId inner = e.sub(centered_gy, e.mul(xh, e.reduce_mean(e.mul(gy, xh), {-1}, true)));
    g[0] = e.mul(r, inner);
  }
  if (ctx.wants(1)) g[1] = e.unbroadcast(e.mul(dy, xh), d_shape);
  if (ctx.wants(2)) g[2] = e.unbroadcast(dy, d_shape);
  return g;
}

Grads vjp_softmax(VjpContext& ctx) {
  const ValueId g = softmax_grad(ctx.e, ctx.out(), ctx.grad, ctx.op.attrs.get_int("axis", -1));
  return {mutant_active(MutantId::VjpSoftmaxScaled) ? ctx.e.scale(g, 1.5) : g};
}

// y = x r w, r = rsqrt(mean(x^2) + eps) over the last dim;
// dw = sum(dy x r), dx = r (g - x r^2 mean(g x)), g = dy * w.
Grads vjp_rms_norm(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const ValueId x = ctx.in(0);
  const ValueId w = e.cast(ctx.in(1), e.dtype(x));
  const ValueId dy = ctx.grad;
  const ValueId r =
      e.op(OpKind::Rsqrt, {e.plus(e.reduce_mean(e.mul(x, x), {-1}, true), ctx.op.attrs.get_float("eps"))});
  Grads g(2, kNoValue);
  if (ctx.wants(0)) {
    const ValueId gy = e.mul(dy, w);
    const ValueId proj = e.mul(e.mul(x, e.mul(r, r)), e.reduce_mean(e.mul(gy, x), {-1}, true));
    g[0] = e.mul(r, e.sub(gy, proj));
  }
  if (ctx.wants(1)) {
    g[1] = e.cast(e.unbroadcast(e.mul(dy, e.mul(x, r)), e.shape(ctx.in(1))), e.dtype(ctx.in(1)));
  }
  return g;
}

// p = softmax(q @ kt * scale + mask), y = p @ v. The mask gets no gradient.
Grads vjp_sdpa(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const ValueId q = ctx.in(0), kt = ctx.in(1), v = ctx.in(2);
  const double scale = ctx.op.attrs.get_float("scale");
  ValueId scores = e.scale(e.matmul(q, kt), scale);
  if (ctx.op.inputs.size() > 3) scores = e.add(scores, ctx.in(3));
  const ValueId p = e.op(OpKind::Softmax, {scores}, {{"axis", int64_t{-1}}});
  Grads g(ctx.op.inputs.size(), kNoValue);
  if (ctx.wants(2)) g[2] = e.matmul(e.swap_last_two(p), ctx.grad);
  if (ctx.wants(0) || ctx.wants(1)) {
    const ValueId dp = e.matmul(ctx.grad, e.swap_last_two(v));
    const ValueId ds = e.scale(softmax_grad(e, p, dp, -1), scale);
    if (ctx.wants(0)) g[0] = e.matmul(ds, e.swap_last_two(kt));
    if (ctx.wants(1)) g[1] = e.matmul(e.swap_last_two(q), ds);
  }
  return g;
}

}  // namespace meshtest::compiler::autodiff
