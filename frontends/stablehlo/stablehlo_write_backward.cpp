// StableHLO emitters of autodiff's backward ops: the transposed
// convolutions of conv2d (input: lhs-dilated convolution with the reversed
// kernel; weight: x convolved with dy, batch and feature swapped),
// max_pool2d_backward as select_and_scatter, avg_pool2d_backward as
// pad + reduce_window, embedding_backward as a scatter-add (with
// composites: meshtest.embedding_backward around it) and
// slice_backward as pad.
#include <algorithm>

#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

struct Geometry2d {
  std::vector<int64_t> stride, pad, dilation;
};

Geometry2d conv_geometry(const EmitContext& c) {
  return {c.get_ints("stride"), c.get_ints("padding"), c.get_ints("dilation")};
}

// dx = the transposed convolution of dy: dy dilated by the stride, padded
// by d*(K-1)-p below and H-(OH-1)*s-1+p above, convolved with the
// spatially reversed kernel whose in/out features swap (grouped: the
// kernel's [g*Og, Cg] rows regrouped to [Og, g*Cg]).
Val emit_conv2d_backward_input(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const Geometry2d g = conv_geometry(c);
  const int64_t groups = c.get_int("groups");
  const Shape& w = c.in[1].type.shape;
  Val kernel = c.in[1];
  if (groups > 1) {
    const int64_t og = w[0] / groups;
    kernel = fn.reshape(kernel, {groups, og, w[1], w[2], w[3]});
    kernel = fn.transpose(kernel, {1, 0, 2, 3, 4});
    kernel = fn.reshape(kernel, {og, groups * w[1], w[2], w[3]});
  }
  kernel = fn.reverse(kernel, {2, 3});
  const Shape& dy = c.in[0].type.shape;
  ConvWindow window;
  window.stride = {1, 1};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t lo = g.dilation[i] * (w[2 + i] - 1) - g.pad[i];
    const int64_t hi = c.out.shape[2 + i] - (dy[2 + i] - 1) * g.stride[i] - 1 + g.pad[i];
    window.pad.emplace_back(lo, hi);
  }
  window.lhs_dilate = g.stride;
  window.rhs_dilate = g.dilation;
  return fn.convolution(c.in[0], kernel, "[b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1]", window, groups, 1, c.out);
}

// dw[o, c, kh, kw] = sum over n, oh, ow of x[n, c, oh*s - p + kh*d, ..] * dy[n, o, oh, ow]:
// x's channels act as the batch, its batch as the contracted feature; dy is
// the kernel (dilated by the stride), the window strides by the dilation.
// Grouped: batch_group_count pairs channel group i with output group i.
Val emit_conv2d_backward_weight(EmitContext& c) {
  const Geometry2d g = conv_geometry(c);
  const Shape& x = c.in[0].type.shape;
  const Shape& dy = c.in[1].type.shape;
  ConvWindow window;
  window.stride = g.dilation;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t hi =
        (c.out.shape[2 + i] - 1) * g.dilation[i] + (dy[2 + i] - 1) * g.stride[i] + 1 - x[2 + i] - g.pad[i];
    window.pad.emplace_back(g.pad[i], hi);
  }
  window.rhs_dilate = g.stride;
  return c.fn.convolution(c.in[0], c.in[1], "[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]", window, 1, c.get_int("groups"),
                          c.out);
}

struct PoolGeometry {
  std::vector<int64_t> kernel, stride, pad;
  std::vector<int64_t> window() const { return {1, 1, kernel[0], kernel[1]}; }
  std::vector<int64_t> strides() const { return {1, 1, stride[0], stride[1]}; }
  std::vector<std::pair<int64_t, int64_t>> padding() const {
    return {{0, 0}, {0, 0}, {pad[0], pad[0]}, {pad[1], pad[1]}};
  }
};

PoolGeometry pool_geometry(const EmitContext& c) {
  return {c.get_ints("kernel"), c.get_ints("stride"), c.get_ints("padding")};
}

// Each dy element goes to its window's first maximum (GE keeps the earlier
// one on ties); padding is never selected.
Val emit_max_pool2d_backward(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const PoolGeometry g = pool_geometry(c);
  const Val init = fn.scalar(0.0, c.out.dtype);
  std::string props = "padding = dense<[[0, 0], [0, 0], [" + std::to_string(g.pad[0]) + ", " +
                      std::to_string(g.pad[0]) + "], [" + std::to_string(g.pad[1]) + ", " + std::to_string(g.pad[1]) +
                      "]]> : tensor<4x2xi64>, window_dimensions = " + i64_array(g.window()) +
                      ", window_strides = " + i64_array(g.strides());
  const std::string select = fn.compare_region("GE", c.out.dtype);
  const std::string scatter = fn.combiner_region("add", c.out.dtype);
  return fn.generic("select_and_scatter", {c.in[0], c.in[1], init}, props, {select, scatter}, c.out);
}

// dy divided by its window's divisor, then spread: dy dilated by the stride
// and padded by k-1-p below, summed over k-wide windows.
Val emit_avg_pool2d_backward(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const PoolGeometry g = pool_geometry(c);
  const Val& dy = c.in[0];
  Val scaled;
  const bool padded = g.pad[0] != 0 || g.pad[1] != 0;
  if (c.get_int("count_include_pad") != 0 || !padded) {
    scaled = fn.with_scalar("divide", dy, static_cast<double>(g.kernel[0] * g.kernel[1]));
  } else {
    const Val ones = fn.splat(1.0, {c.out.dtype, {1, 1, c.out.shape[2], c.out.shape[3]}});
    const Val counts = fn.reduce_window(ones, 0.0, "add", g.window(), g.strides(), g.padding(),
                                        {c.out.dtype, {1, 1, dy.type.shape[2], dy.type.shape[3]}});
    scaled = fn.binary("divide", dy, fn.broadcast_in_dim(counts, dy.type.shape, {0, 1, 2, 3}));
  }
  std::vector<int64_t> low{0, 0}, high{0, 0}, interior{0, 0};
  for (size_t i = 0; i < 2; ++i) {
    low.push_back(g.kernel[i] - 1 - g.pad[i]);
    high.push_back(c.out.shape[2 + i] + g.pad[i] - (dy.type.shape[2 + i] - 1) * g.stride[i] - 1);
    interior.push_back(g.stride[i] - 1);
  }
  const Val spread = fn.pad(scaled, fn.scalar(0.0, c.out.dtype), low, high, interior);
  return fn.reduce_window(spread, 0.0, "add", g.window(), {1, 1, 1, 1}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, c.out);
}

// Row ids[i] of a zero [V, D] table accumulates dy[i, :]. With composites:
// `meshtest.embedding_backward`, which a reader takes back as the op (a
// scatter skips an out-of-range id where the op reports it, and the op
// sums its rows in its own order).
Val emit_embedding_backward(EmitContext& c) {
  return emit_fused(c, "meshtest.embedding_backward", "", c.in, c.out, [&c](FunctionBuilder& fn, const std::vector<Val>& a) {
    const int64_t r = static_cast<int64_t>(a[0].type.shape.size());
    const Val zeros = fn.splat(0.0, c.out);
    const std::string props =
        "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [" + std::to_string(r) +
        "], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = " + std::to_string(r) +
        ">";
    return fn.generic("scatter", {zeros, a[0], a[1]}, props, {fn.combiner_region("add", c.out.dtype)}, c.out);
  });
}

// Zeros of input_shape with dy where the slice read: pad by start below,
// step-1 between, the rest above.
Val emit_slice_backward(EmitContext& c) {
  const Shape& in = c.out.shape;
  const Val& dy = c.in[0];
  const int64_t axis = normalize_axis(c.get_int("axis"), static_cast<int64_t>(in.size()));
  const auto a = static_cast<size_t>(axis);
  const int64_t dim = in[a];
  const int64_t start_attr = c.get_int("start");
  const int64_t start = std::clamp<int64_t>(start_attr < 0 ? start_attr + dim : start_attr, 0, dim);
  const int64_t step = c.get_int("step");
  const int64_t len = dy.type.shape[a];
  std::vector<int64_t> low(in.size(), 0), high(in.size(), 0), interior(in.size(), 0);
  low[a] = start;
  interior[a] = step - 1;
  high[a] = dim - start - (len > 0 ? (len - 1) * step + 1 : 0);
  return c.fn.pad(dy, c.fn.scalar(0.0, dy.type.dtype), low, high, interior);
}

}  // namespace

void add_backward_emitters(OpTable<Emitter>& table) {
  table.set(K::Conv2dBackwardInput, emit_conv2d_backward_input)
      .set(K::Conv2dBackwardWeight, emit_conv2d_backward_weight)
      .set(K::MaxPool2dBackward, emit_max_pool2d_backward)
      .set(K::AvgPool2dBackward, emit_avg_pool2d_backward)
      .set(K::EmbeddingBackward, emit_embedding_backward)
      .set(K::SliceBackward, emit_slice_backward);
}

}  // namespace meshtest::frontends::stablehlo
