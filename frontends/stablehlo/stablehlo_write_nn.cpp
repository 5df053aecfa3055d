// StableHLO emitters of the neural-network ops: matmul / linear as
// dot_general, conv2d as convolution (NCHW x OIHW), pools as reduce_window,
// batch_norm as batch_norm_inference, layer_norm / rms_norm / softmax as
// reduce + broadcast arithmetic, sdpa as dot_general + softmax + dot_general, topk_mask as a
// pairwise rank count. layer_norm, rms_norm and sdpa are fused ops: with
// WriteOptions::composites they become tt-xla's composites.
#include <cmath>
#include <utility>

#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

std::vector<int64_t> range(int64_t begin, int64_t end) {
  std::vector<int64_t> dims;
  for (int64_t d = begin; d < end; ++d) dims.push_back(d);
  return dims;
}

// Every dim of a rank-`rank` tensor but `axis`: where a reduction's result
// goes when broadcast back.
std::vector<int64_t> all_but(int64_t rank, int64_t axis) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) dims.push_back(d);
  }
  return dims;
}

// x reduced over `axis` with `combiner`, broadcast back to x's shape.
Val reduce_keep(FunctionBuilder& fn, const Val& x, int64_t axis, std::string_view combiner, double init) {
  const int64_t rank = static_cast<int64_t>(x.type.shape.size());
  const Val r = fn.reduce(x, {axis}, combiner, init);
  return fn.broadcast_in_dim(r, x.type.shape, all_but(rank, axis));
}

// A [C] vector broadcast along dim 1 of an NCHW shape.
Val per_channel(FunctionBuilder& fn, const Val& v, const Shape& shape) { return fn.broadcast_in_dim(v, shape, {1}); }

// matmul: both operands broadcast to the common batch dims, then one dot_general.
Val emit_matmul(EmitContext& c) {
  const Shape& out = c.out.shape;
  const size_t nb = out.size() - 2;
  Shape a_shape(out.begin(), out.end() - 2), b_shape = a_shape;
  const Shape& a = c.in[0].type.shape;
  const Shape& b = c.in[1].type.shape;
  a_shape.insert(a_shape.end(), a.end() - 2, a.end());
  b_shape.insert(b_shape.end(), b.end() - 2, b.end());
  const auto batch = range(0, static_cast<int64_t>(nb));
  const auto k = static_cast<int64_t>(nb);
  const Val lhs = c.fn.broadcast_to(c.in[0], a_shape);
  const Val rhs = c.fn.broadcast_to(c.in[1], b_shape);
  return c.fn.dot_general(lhs, rhs, batch, batch, {k + 1}, {k});
}

// linear: x @ w^T (contracting x's last dim with w's dim 1), then + bias.
Val emit_linear(EmitContext& c) {
  const int64_t rank = static_cast<int64_t>(c.in[0].type.shape.size());
  Val y = c.fn.dot_general(c.in[0], c.in[1], {}, {}, {rank - 1}, {1});
  if (c.in.size() == 3) y = c.fn.binary("add", y, c.fn.broadcast_in_dim(c.in[2], y.type.shape, {rank - 1}));
  return y;
}

std::vector<int64_t> pair_of(const EmitContext& c, const char* name) { return c.get_ints(name); }

Val emit_conv2d(EmitContext& c) {
  const auto pad = pair_of(c, "padding");
  ConvWindow window;
  window.stride = pair_of(c, "stride");
  window.pad = {{pad[0], pad[0]}, {pad[1], pad[1]}};
  window.rhs_dilate = pair_of(c, "dilation");
  Val y = c.fn.convolution(c.in[0], c.in[1], "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", window, c.get_int("groups"), 1,
                           c.out);
  if (c.in.size() == 3) y = c.fn.binary("add", y, per_channel(c.fn, c.in[2], c.out.shape));
  return y;
}

// The reduce_window geometry of a 2-D NCHW pool.
struct PoolWindow {
  std::vector<int64_t> window, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
};

PoolWindow pool_window(const EmitContext& c) {
  const auto kernel = pair_of(c, "kernel"), stride = pair_of(c, "stride"), pad = pair_of(c, "padding");
  return {
      {1, 1, kernel[0], kernel[1]}, {1, 1, stride[0], stride[1]}, {{0, 0}, {0, 0}, {pad[0], pad[0]}, {pad[1], pad[1]}}};
}

// max_pool2d: padding is -inf, so only real elements win; NaN propagates through maximum.
Val emit_max_pool2d(EmitContext& c) {
  const PoolWindow p = pool_window(c);
  return c.fn.reduce_window(c.in[0], -INFINITY, "maximum", p.window, p.strides, p.padding, c.out);
}

// avg_pool2d: window sums divided by kh*kw (count_include_pad, or no padding),
// else by the count of real elements, itself a window sum over ones.
Val emit_avg_pool2d(EmitContext& c) {
  const PoolWindow p = pool_window(c);
  const Val sums = c.fn.reduce_window(c.in[0], 0.0, "add", p.window, p.strides, p.padding, c.out);
  const bool padded = p.padding[2].first != 0 || p.padding[3].first != 0;
  if (c.get_int("count_include_pad") != 0 || !padded) {
    return c.fn.with_scalar("divide", sums, static_cast<double>(p.window[2] * p.window[3]));
  }
  const Shape& in = c.in[0].type.shape;
  const Val ones = c.fn.splat(1.0, {c.out.dtype, {1, 1, in[2], in[3]}});
  const Val counts = c.fn.reduce_window(ones, 0.0, "add", p.window, p.strides, p.padding,
                                        {c.out.dtype, {1, 1, c.out.shape[2], c.out.shape[3]}});
  return c.fn.binary("divide", sums, c.fn.broadcast_in_dim(counts, c.out.shape, {0, 1, 2, 3}));
}

Val emit_global_avg_pool2d(EmitContext& c) {
  const Shape& in = c.in[0].type.shape;
  const Val sums = c.fn.reduce(c.in[0], {2, 3}, "add", 0.0);
  return c.fn.reshape(c.fn.with_scalar("divide", sums, static_cast<double>(in[2] * in[3])), c.out.shape);
}

// batch_norm: stablehlo.batch_norm_inference over feature dim 1, the same
// definition ((x - mean) / sqrt(var + eps) * scale + offset), so a reader
// gets batch_norm back rather than arithmetic that rounds differently.
Val emit_batch_norm(EmitContext& c) {
  const std::string properties = "epsilon = " + scalar_literal(c.get_float("eps"), DType::F32) +
                                 " : f32, feature_index = 1 : i64";
  return c.fn.generic("batch_norm_inference", c.in, properties, {}, c.out);
}

// mean over the last dim, broadcast back.
Val mean_last_keep(FunctionBuilder& fn, const Val& x) {
  const int64_t rank = static_cast<int64_t>(x.type.shape.size());
  const Val sum = fn.reduce(x, {rank - 1}, "add", 0.0);
  const Val mean = fn.with_scalar("divide", sum, static_cast<double>(x.type.shape.back()));
  return fn.broadcast_in_dim(mean, x.type.shape, range(0, rank - 1));
}

// A [D] vector broadcast along the last dim of `shape`.
Val along_last(FunctionBuilder& fn, const Val& v, const Shape& shape) {
  return fn.broadcast_in_dim(v, shape, {static_cast<int64_t>(shape.size()) - 1});
}

// tt-xla's norm composite attributes: normalized_shape and epsilon.
std::string norm_attributes(int64_t d, double eps) {
  return "epsilon = " + scalar_literal(eps, DType::F32) + " : f32, normalized_shape = dense<" + std::to_string(d) +
         "> : tensor<1xi64>";
}

// layer_norm over the last dim: c = x - mean; (c * rsqrt(mean(c*c) + eps)) * gamma + beta.
Val emit_layer_norm(EmitContext& c) {
  const double eps = c.get_float("eps");
  return emit_fused(c, "tenstorrent.layer_norm", norm_attributes(c.out.shape.back(), eps), c.in, c.out,
                    [eps](FunctionBuilder& fn, const std::vector<Val>& a) {
                      const Shape& shape = a[0].type.shape;
                      const Val centered = fn.binary("subtract", a[0], mean_last_keep(fn, a[0]));
                      const Val var = mean_last_keep(fn, fn.binary("multiply", centered, centered));
                      const Val inv = fn.unary("rsqrt", fn.with_scalar("add", var, eps));
                      const Val normalized = fn.binary("multiply", centered, inv);
                      const Val scaled = fn.binary("multiply", normalized, along_last(fn, a[1], shape));
                      return fn.binary("add", scaled, along_last(fn, a[2], shape));
                    });
}

// rms_norm: (x * rsqrt(mean(x*x) + eps)) * w, computed in x's dtype (w converted
// to it when it differs; both forms are then the same).
Val emit_rms_norm(EmitContext& c) {
  const double eps = c.get_float("eps");
  return emit_fused(c, "tenstorrent.rms_norm", norm_attributes(c.out.shape.back(), eps), c.in, c.out,
                    [eps](FunctionBuilder& fn, const std::vector<Val>& a) {
                      const Shape& shape = a[0].type.shape;
                      const Val ms = mean_last_keep(fn, fn.binary("multiply", a[0], a[0]));
                      const Val inv = fn.unary("rsqrt", fn.with_scalar("add", ms, eps));
                      const Val normalized = fn.binary("multiply", a[0], inv);
                      const Val w = fn.convert(a[1], a[0].type.dtype);
                      return fn.binary("multiply", normalized, along_last(fn, w, shape));
                    });
}

// softmax along `axis`: e = exp(x - max); e / sum(e).
Val softmax(FunctionBuilder& fn, const Val& x, int64_t axis) {
  const Val shifted = fn.binary("subtract", x, reduce_keep(fn, x, axis, "maximum", -INFINITY));
  const Val e = fn.unary("exponential", shifted);
  return fn.binary("divide", e, reduce_keep(fn, e, axis, "add", 0.0));
}

Val emit_softmax(EmitContext& c) {
  return softmax(c.fn, c.in[0], normalize_axis(c.get_int("axis"), static_cast<int64_t>(c.out.shape.size())));
}

// sdpa(q, kt, v, mask?): softmax(q @ kt * scale + mask) @ v over the shared
// batch dims. The composite takes the key untransposed ([..., T, D]) as
// tt-xla's tenstorrent.scaled_dot_product_attention does.
Val emit_sdpa(EmitContext& c) {
  const double scale = c.get_float("scale");
  const int64_t rank = static_cast<int64_t>(c.in[0].type.shape.size());
  const int64_t nb = rank - 2;
  auto swap_last = [rank]() {
    std::vector<int64_t> perm = range(0, rank);
    std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
    return perm;
  };
  std::vector<Val> operands = c.in;
  const bool composite = c.options.composites;
  if (composite) operands[1] = c.fn.transpose(c.in[1], swap_last());
  const std::string attributes = "is_causal = false, scale = " + scalar_literal(scale, DType::F32) + " : f32";
  return emit_fused(c, "tenstorrent.scaled_dot_product_attention", attributes, operands, c.out,
                    [=](FunctionBuilder& fn, const std::vector<Val>& a) {
                      const Val kt = composite ? fn.transpose(a[1], swap_last()) : a[1];
                      const auto batch = range(0, nb);
                      Val scores = fn.dot_general(a[0], kt, batch, batch, {nb + 1}, {nb});
                      scores = fn.with_scalar("multiply", scores, scale);
                      if (a.size() == 4) scores = fn.binary("add", scores, fn.broadcast_to(a[3], scores.type.shape));
                      return fn.dot_general(softmax(fn, scores, rank - 1), a[2], batch, batch, {nb + 1}, {nb});
                    });
}

// topk_mask: element i is kept when fewer than k elements j along the axis
// beat it (x_j > x_i, or x_j == x_i with j < i: ties go to the lower index).
// The pairwise comparison is an [.., n, n, ..] tensor (i at `axis`, j after it).
Val emit_topk_mask(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const Val& x = c.in[0];
  const int64_t rank = static_cast<int64_t>(x.type.shape.size());
  const int64_t axis = normalize_axis(c.get_int("axis"), rank);
  Shape pairs = x.type.shape;
  pairs.insert(pairs.begin() + axis + 1, x.type.shape[static_cast<size_t>(axis)]);
  std::vector<int64_t> dims_i, dims_j;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t after = d > axis ? d + 1 : d;
    dims_i.push_back(after);
    dims_j.push_back(d == axis ? axis + 1 : after);
  }
  const Val xi = fn.broadcast_in_dim(x, pairs, dims_i), xj = fn.broadcast_in_dim(x, pairs, dims_j);
  const TensorType index_type{DType::I32, pairs};
  const Val j = fn.iota(index_type, axis + 1);
  const Val i = fn.iota(index_type, axis);
  const Val lower = fn.compare("LT", j, i);
  const Val greater = fn.compare("GT", xj, xi);
  const Val tie = fn.binary("and", fn.compare("EQ", xj, xi), lower);
  const Val beats = fn.binary("or", greater, tie);
  const Val rank_of = fn.reduce(fn.convert(beats, DType::I32), {axis + 1}, "add", 0.0);
  const Val kept = fn.compare("LT", rank_of, fn.splat(static_cast<double>(c.get_int("k")), rank_of.type));
  return fn.convert(kept, c.out.dtype);
}

}  // namespace

void add_nn_emitters(OpTable<Emitter>& table) {
  table.set(K::Matmul, emit_matmul)
      .set(K::Linear, emit_linear)
      .set(K::Conv2d, emit_conv2d)
      .set(K::MaxPool2d, emit_max_pool2d)
      .set(K::AvgPool2d, emit_avg_pool2d)
      .set(K::GlobalAvgPool2d, emit_global_avg_pool2d)
      .set(K::BatchNorm, emit_batch_norm)
      .set(K::LayerNorm, emit_layer_norm)
      .set(K::RmsNorm, emit_rms_norm)
      .set(K::Softmax, emit_softmax)
      .set(K::Sdpa, emit_sdpa)
      .set(K::TopkMask, emit_topk_mask);
}

}  // namespace meshtest::frontends::stablehlo
