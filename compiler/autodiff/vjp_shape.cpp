// Vector-Jacobian rules of the data-movement ops: embedding (table gradient
// by scatter-add; ids get none), reshape, transpose, concat and slice.
#include "compiler/autodiff/vjp.h"

namespace meshtest::compiler::autodiff {

Grads vjp_embedding(VjpContext& ctx) {
  Grads g(2, kNoValue);
  if (ctx.wants(1)) {
    const int64_t rows = ctx.e.shape(ctx.in(1))[0];
    g[1] = ctx.e.op(OpKind::EmbeddingBackward, {ctx.in(0), ctx.grad}, {{"num_embeddings", rows}});
  }
  return g;
}

Grads vjp_reshape(VjpContext& ctx) { return {ctx.e.reshape(ctx.grad, ctx.e.shape(ctx.in(0)))}; }

Grads vjp_transpose(VjpContext& ctx) {
  const auto perm = ctx.op.attrs.get_ints("perm");
  const auto rank = static_cast<int64_t>(perm.size());
  std::vector<int64_t> inverse(perm.size());
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p =
        perm[static_cast<size_t>(i)] < 0 ? perm[static_cast<size_t>(i)] + rank : perm[static_cast<size_t>(i)];
    inverse[static_cast<size_t>(p)] = i;
  }
  return {ctx.e.transpose(ctx.grad, inverse)};
}

Grads vjp_concat(VjpContext& ctx) {
  Emitter& e = ctx.e;
  const auto rank = static_cast<int64_t>(e.shape(ctx.grad).size());
  const int64_t axis = normalize_axis(ctx.op.attrs.get_int("axis"), rank);
  Grads g(ctx.op.inputs.size(), kNoValue);
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.op.inputs.size(); ++i) {
    const int64_t len = e.shape(ctx.in(i))[static_cast<size_t>(axis)];
    if (ctx.wants(i)) {
      g[i] = e.op(OpKind::Slice, {ctx.grad},
                  {{"axis", axis}, {"start", offset}, {"end", offset + len}, {"step", int64_t{1}}});
    }
    offset += len;
  }
  return g;
}

Grads vjp_slice(VjpContext& ctx) {
  Attrs a = ctx.op.attrs;
  a.set("input_shape", ctx.e.shape(ctx.in(0)));
  return {ctx.e.op(OpKind::SliceBackward, {ctx.grad}, a)};
}

}  // namespace meshtest::compiler::autodiff
