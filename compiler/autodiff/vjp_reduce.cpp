// Vector-Jacobian rules of the reductions: reduce_sum / reduce_mean broadcast
// the gradient back (scaled by 1/count for the mean); reduce_max sends it to
// the maxima, split evenly among ties.
#include "compiler/autodiff/vjp.h"
#include "core/mutation.h"

namespace meshtest::compiler::autodiff {

namespace {

// The reduced result's shape with keepdim=1, and the number of elements reduced.
Shape keepdim_shape(const Shape& in, const std::vector<int64_t>& axes, int64_t& count) {
  Shape s = in;
  count = 1;
  for (int64_t a : axes) {
    const auto n = static_cast<size_t>(normalize_axis(a, static_cast<int64_t>(in.size())));
    count *= in[n];
    s[n] = 1;
  }
  return s;
}

}  // namespace

Grads vjp_reduce_sum_mean(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const TensorType& x = e.type(ctx.in(0));
  int64_t count = 1;
  const Shape kept = keepdim_shape(x.shape, ctx.op.attrs.get_ints("axes"), count);
  // The vjp_reduce_mean_undivided mutant gives reduce_mean reduce_sum's rule.
  const bool mean = ctx.op.kind == OpKind::ReduceMean && !mutant_active(MutantId::VjpReduceMeanUndivided);
  const double factor = mean ? (count > 0 ? 1.0 / static_cast<double>(count) : 0.0) : 1.0;
  return {e.expand(e.reshape(ctx.grad, kept), x, factor)};
}

Grads vjp_reduce_max(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const ValueId x = ctx.in(0);
  const auto axes = ctx.op.attrs.get_ints("axes");
  int64_t count = 1;
  const Shape kept = keepdim_shape(e.shape(x), axes, count);
  const ValueId is_max = e.greater_equal(x, e.reshape(ctx.out(), kept));
  const ValueId ties = e.reduce_sum(is_max, axes, true);
  return {e.mul(is_max, e.div(e.reshape(ctx.grad, kept), ties))};
}

}  // namespace meshtest::compiler::autodiff
