// Vector-Jacobian rules of the elementwise ops: the unary math functions,
// add/sub/mul/div/maximum with numpy broadcasting (gradients unbroadcast to
// each operand's shape), and cast. Under the vjp_gelu_tanh_form mutant
// (core/mutation.h) exact gelu gets the tanh form's derivative.
#include <cmath>

#include "compiler/autodiff/vjp.h"
#include "core/error.h"
#include "core/mutation.h"

namespace meshtest::compiler::autodiff {

namespace {

constexpr double kGeluCubic = 0.044715;

// d gelu / dx for approximate = "none": Phi(x) + x * phi(x).
ValueId gelu_erf_derivative(Emitter& e, ValueId x) {
  const ValueId cdf = e.scale(e.plus(e.op(OpKind::Erf, {e.scale(x, 1.0 / std::sqrt(2.0))}), 1.0), 0.5);
  const ValueId pdf = e.scale(e.op(OpKind::Exp, {e.scale(e.mul(x, x), -0.5)}), 1.0 / std::sqrt(2.0 * M_PI));
  return e.add(cdf, e.mul(x, pdf));
}

// d gelu / dx for approximate = "tanh", t = tanh(k (x + c x^3)):
// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
ValueId gelu_tanh_derivative(Emitter& e, ValueId x) {
  const double k = std::sqrt(2.0 / M_PI);
  const ValueId x2 = e.mul(x, x);
  const ValueId t = e.op(OpKind::Tanh, {e.scale(e.add(x, e.scale(e.mul(x2, x), kGeluCubic)), k)});
  const ValueId one_minus_t2 = e.sub(e.scalar(1.0, e.dtype(x)), e.mul(t, t));
  const ValueId inner = e.plus(e.scale(x2, 3.0 * kGeluCubic), 1.0);
  const ValueId right = e.mul(e.scale(e.mul(x, one_minus_t2), 0.5 * k), inner);
  return e.add(e.scale(e.plus(t, 1.0), 0.5), right);
}

// dy * f'(x) for each unary op, using the result y where that is cheaper.
ValueId unary_grad(Emitter& e, const Op& op, ValueId dy) {
  const ValueId x = op.inputs[0];
  const ValueId y = op.output;
  const DType dt = e.dtype(x);
  switch (op.kind) {
    case OpKind::Relu:
      return e.mul(dy, e.op(OpKind::Greater, {x, e.scalar(0.0, dt)}));
    case OpKind::Gelu:
      return e.mul(dy, op.attrs.get_string("approximate", "none") == "tanh" || mutant_active(MutantId::VjpGeluTanhForm)
                           ? gelu_tanh_derivative(e, x)
                           : gelu_erf_derivative(e, x));
    case OpKind::Tanh:
      return e.mul(dy, e.sub(e.scalar(1.0, dt), e.mul(y, y)));
    case OpKind::Exp:
      return e.mul(dy, y);
    case OpKind::Log:
      return e.div(dy, x);
    case OpKind::Sqrt:
      return e.div(e.scale(dy, 0.5), y);
    case OpKind::Rsqrt:
      return e.mul(e.scale(dy, -0.5), e.mul(y, e.mul(y, y)));
    case OpKind::Neg:
      return e.neg(dy);
    case OpKind::Sigmoid:
      return e.mul(dy, e.mul(y, e.sub(e.scalar(1.0, dt), y)));
    case OpKind::Silu: {  // s (1 + x (1 - s)); s alone under the vjp_silu_sigmoid_only mutant
      const ValueId s = e.op(OpKind::Sigmoid, {x});
      if (mutant_active(MutantId::VjpSiluSigmoidOnly)) return e.mul(dy, s);
      return e.mul(dy, e.mul(s, e.plus(e.mul(x, e.sub(e.scalar(1.0, dt), s)), 1.0)));
    }
    case OpKind::Erf:
      return e.mul(dy, e.scale(e.op(OpKind::Exp, {e.neg(e.mul(x, x))}), 2.0 / std::sqrt(M_PI)));
    case OpKind::Sin:
      return e.mul(dy, e.op(OpKind::Cos, {x}));
    case OpKind::Cos:
      return e.neg(e.mul(dy, e.op(OpKind::Sin, {x})));
    default:
      break;
  }
  throw CompileError("autodiff: no unary rule for " + std::string(op_name(op.kind)));
}

}  // namespace

Grads vjp_unary(VjpContext& ctx) { return {unary_grad(ctx.e, ctx.op, ctx.grad)}; }

Grads vjp_add_sub(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(2, kNoValue);
  if (ctx.wants(0)) g[0] = e.unbroadcast(ctx.grad, e.shape(ctx.in(0)));
  if (ctx.wants(1)) {
    const ValueId d = ctx.op.kind == OpKind::Sub ? e.neg(ctx.grad) : ctx.grad;
    g[1] = e.unbroadcast(d, e.shape(ctx.in(1)));
  }
  return g;
}

Grads vjp_mul(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(2, kNoValue);
  for (size_t i = 0; i < 2; ++i) {
    if (ctx.wants(i)) g[i] = e.unbroadcast(e.mul(ctx.grad, ctx.in(1 - i)), e.shape(ctx.in(i)));
  }
  return g;
}

// y = a / b: da = dy / b, db = -dy * y / b (+dy * y / b under the
// vjp_div_denominator_sign mutant).
Grads vjp_div(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(2, kNoValue);
  const ValueId dy_over_b = e.div(ctx.grad, ctx.in(1));
  if (ctx.wants(0)) g[0] = e.unbroadcast(dy_over_b, e.shape(ctx.in(0)));
  if (ctx.wants(1)) {
    const ValueId db = e.mul(dy_over_b, ctx.out());
    g[1] = e.unbroadcast(mutant_active(MutantId::VjpDivDenominatorSign) ? db : e.neg(db), e.shape(ctx.in(1)));
  }
  return g;
}

// Ties go to a (see autodiff.h).
Grads vjp_maximum(VjpContext& ctx) {
  Emitter& e = ctx.e;
  Grads g(2, kNoValue);
  const ValueId to_a = e.mul(ctx.grad, e.greater_equal(ctx.in(0), ctx.in(1)));
  if (ctx.wants(0)) g[0] = e.unbroadcast(to_a, e.shape(ctx.in(0)));
  if (ctx.wants(1)) g[1] = e.unbroadcast(e.sub(ctx.grad, to_a), e.shape(ctx.in(1)));
  return g;
}

Grads vjp_cast(VjpContext& ctx) {
  if (!ctx.wants(0)) return {kNoValue};
  return {ctx.e.cast(ctx.grad, ctx.e.dtype(ctx.in(0)))};
}

}  // namespace meshtest::compiler::autodiff
