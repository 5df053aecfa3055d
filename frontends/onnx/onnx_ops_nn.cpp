// Converters of ONNX's neural-network ops: Conv and ConvTranspose (1-D and
// 2-D; transposed convolution as a convolution of the zero-stuffed input with
// the flipped kernel), Gemm, MatMul, pooling (asymmetric padding and
// ceil_mode by explicit padding), normalizations, and Resize/Upsample as one
// interpolation matrix per resized axis.
#include <onnx/onnx_pb.h>

#include <cmath>

#include "frontends/onnx/node_context.h"

namespace meshtest::frontends::onnx_import {

namespace {

// Window geometry of a conv or pool over the last two dims (1-D ops are
// lifted to 2-D with a leading spatial dim of 1).
struct Geometry {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  bool symmetric() const { return pad_begin == pad_end; }
};

Geometry geometry(NodeContext& n, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in) {
  const size_t k = kernel.size();
  if (in.size() != k) n.unsupported("a kernel of rank " + std::to_string(k) + " over " + std::to_string(in.size()) + " spatial dims");
  Geometry g;
  g.kernel = kernel;
  g.stride = n.attr_ints("strides", std::vector<int64_t>(k, 1));
  g.dilation = n.attr_ints("dilations", std::vector<int64_t>(k, 1));
  const std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * k, 0));
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (g.stride.size() != k || g.dilation.size() != k || pads.size() != 2 * k) n.unsupported("strides/dilations/pads of the wrong length");
  for (size_t d = 0; d < k; ++d) {
    if (g.stride[d] < 1 || g.dilation[d] < 1 || kernel[d] < 1) n.unsupported("strides, dilations and kernel must be >= 1");
  }
  g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<long>(k));
  g.pad_end.assign(pads.begin() + static_cast<long>(k), pads.end());
  if (auto_pad == "VALID") {
    g.pad_begin.assign(k, 0);
    g.pad_end.assign(k, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < k; ++d) {
      const int64_t out = (in[d] + g.stride[d] - 1) / g.stride[d];
      const int64_t total = std::max<int64_t>(0, (out - 1) * g.stride[d] + (kernel[d] - 1) * g.dilation[d] + 1 - in[d]);
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      g.pad_end[d] = total - g.pad_begin[d];
    }
  } else if (auto_pad != "NOTSET") {
    n.unsupported("auto_pad '" + auto_pad + "'");
  }
  return g;
}

// 1-D geometry lifted to 2-D (a leading window dim of 1).
void lift(Geometry& g) {
  g.kernel.insert(g.kernel.begin(), 1);
  g.stride.insert(g.stride.begin(), 1);
  g.dilation.insert(g.dilation.begin(), 1);
  g.pad_begin.insert(g.pad_begin.begin(), 0);
  g.pad_end.insert(g.pad_end.begin(), 0);
}

// [N,C,L] -> [N,C,1,L] (and back with `drop`).
ValueId lift_value(GraphBuilder& b, ValueId x) {
  Shape s = b.shape(x);
  s.insert(s.begin() + 2, 1);
  return b.reshape(x, s);
}
ValueId drop_value(GraphBuilder& b, ValueId x) {
  Shape s = b.shape(x);
  s.erase(s.begin() + 2);
  return b.reshape(x, s);
}

std::vector<int64_t> spatial(const Shape& s) { return {s.begin() + 2, s.end()}; }

// Pads the spatial dims explicitly (begin/end per dim, plus `extra` at the end).
ValueId pad_spatial(GraphBuilder& b, ValueId x, const Geometry& g, const std::vector<int64_t>& extra, double value) {
  for (size_t d = 0; d < 2; ++d) x = pad_axis(b, x, static_cast<int64_t>(d) + 2, g.pad_begin[d], g.pad_end[d] + extra[d], value);
  return x;
}

// 1-D or 2-D windows; for a convolution (`weight`) a weight of the input's rank.
void check_spatial_rank(NodeContext& n, bool weight) {
  if (n.rank(0) != 3 && n.rank(0) != 4) n.unsupported(std::to_string(n.rank(0) - 2) + "-D windows (1-D and 2-D are supported)");
  if (weight && n.rank(1) != n.rank(0)) n.unsupported("a weight of rank " + std::to_string(n.rank(1)) + " for an input of rank " + std::to_string(n.rank(0)));
}

void conv(NodeContext& n) {
  check_spatial_rank(n, true);
  GraphBuilder& b = n.b();
  const bool one_d = n.rank(0) == 3;
  n.attr_ints("kernel_shape", {});
  Geometry g = geometry(n, spatial(n.shape(1)), spatial(n.shape(0)));
  ValueId x = n.in(0);
  ValueId w = n.in(1);
  if (one_d) {
    lift(g);
    x = lift_value(b, x);
    w = lift_value(b, w);
  }
  Attrs attrs{{"stride", g.stride}, {"dilation", g.dilation}, {"groups", n.attr_int("group", 1)}};
  if (g.symmetric()) {
    attrs.set("padding", g.pad_begin);
  } else {
    x = pad_spatial(b, x, g, {0, 0}, 0.0);
  }
  std::vector<ValueId> operands{x, w};
  if (n.has(2)) operands.push_back(n.in(2));
  const ValueId y = b.op(OpKind::Conv2d, operands, attrs);
  n.set(0, one_d ? drop_value(b, y) : y);
}

// The k x k exchange matrix (ones on the anti-diagonal): reverses a dim by matmul.
ValueId exchange(NodeContext& n, int64_t k) {
  std::vector<float> v(static_cast<size_t>(k * k), 0.0f);
  for (int64_t i = 0; i < k; ++i) v[static_cast<size_t>(i * k + (k - 1 - i))] = 1.0f;
  return n.constant(f32_tensor(v, {k, k}));
}

// x [N,C,H,W] with stride-1 zeros between elements: [N,C,(H-1)sh+1,(W-1)sw+1].
ValueId zero_stuff(GraphBuilder& b, ValueId x, const std::vector<int64_t>& s) {
  if (s[0] == 1 && s[1] == 1) return x;
  const Shape in = b.shape(x);
  const DType dt = b.type(x).dtype;
  ValueId y = b.reshape(x, {in[0], in[1], in[2], 1, in[3], 1});
  if (s[0] > 1) y = b.concat({y, b.constant(0.0, {in[0], in[1], in[2], s[0] - 1, in[3], 1}, dt)}, 3);
  if (s[1] > 1) y = b.concat({y, b.constant(0.0, {in[0], in[1], in[2], s[0], in[3], s[1] - 1}, dt)}, 5);
  y = b.reshape(y, {in[0], in[1], in[2] * s[0], in[3] * s[1]});
  y = b.slice(y, 2, 0, (in[2] - 1) * s[0] + 1);
  return b.slice(y, 3, 0, (in[3] - 1) * s[1] + 1);
}

void conv_transpose(NodeContext& n) {
  check_spatial_rank(n, true);
  GraphBuilder& b = n.b();
  const bool one_d = n.rank(0) == 3;
  n.attr_ints("kernel_shape", {});
  const std::vector<int64_t> in_sp = spatial(n.shape(0));
  const std::vector<int64_t> k_sp = spatial(n.shape(1));
  const size_t k = k_sp.size();
  if (in_sp.size() != k) n.unsupported("a kernel of rank " + std::to_string(k) + " over " + std::to_string(in_sp.size()) + " spatial dims");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> stride = n.attr_ints("strides", std::vector<int64_t>(k, 1));
  std::vector<int64_t> dil = n.attr_ints("dilations", std::vector<int64_t>(k, 1));
  std::vector<int64_t> pads = n.attr_ints("pads", std::vector<int64_t>(2 * k, 0));
  std::vector<int64_t> out_pad = n.attr_ints("output_padding", std::vector<int64_t>(k, 0));
  const std::vector<int64_t> out_shape = n.attr_ints("output_shape", {});
  const int64_t groups = n.attr_int("group", 1);
  if (stride.size() != k || dil.size() != k || pads.size() != 2 * k || out_pad.size() != k) n.unsupported("attributes of the wrong length");
  if (groups < 1 || n.shape(1)[0] % groups != 0) n.unsupported("group must divide the input channels");
  for (size_t d = 0; d < k; ++d) {
    if (stride[d] < 1 || dil[d] < 1 || stride[d] > 64) n.unsupported("strides in [1, 64] and dilations >= 1");
  }
  if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < k; ++d) {  // the spec's padding for a requested output size
      const int64_t want = out_shape.empty() ? in_sp[d] * stride[d] : out_shape[out_shape.size() - k + d];
      const int64_t total = stride[d] * (in_sp[d] - 1) + out_pad[d] + (k_sp[d] - 1) * dil[d] + 1 - want;
      const bool upper = auto_pad == "SAME_UPPER";
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor division
      pads[d] = upper ? half : total - half;
      pads[d + k] = total - pads[d];
    }
  } else if (auto_pad == "VALID") {
    std::fill(pads.begin(), pads.end(), 0);
  } else if (auto_pad != "NOTSET") {
    n.unsupported("auto_pad '" + auto_pad + "'");
  }
  ValueId x = n.in(0);
  ValueId w = n.in(1);  // [Ci, Co/g, kh, kw]
  if (one_d) {
    x = lift_value(b, x);
    w = lift_value(b, w);
    stride.insert(stride.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
    out_pad.insert(out_pad.begin(), 0);
  }
  const Shape ws = b.shape(w);
  const int64_t ci = ws[0], co_g = ws[1], kh = ws[2], kw = ws[3];
  if (kh > 4096 || kw > 4096) n.unsupported("a kernel larger than 4096");
  // To the convolution weight [Co, Ci/g, kh, kw], flipped in both spatial dims.
  w = b.reshape(w, {groups, ci / groups, co_g, kh, kw});
  w = b.transpose(w, {0, 2, 1, 3, 4});
  w = b.reshape(w, {groups * co_g, ci / groups, kh, kw});
  w = b.matmul(b.matmul(exchange(n, kh), w), exchange(n, kw));
  x = zero_stuff(b, x, stride);
  Geometry g;
  const int64_t kk[2] = {kh, kw};
  for (size_t d = 0; d < 2; ++d) {
    const int64_t reach = dil[d] * (kk[d] - 1);
    g.pad_begin.push_back(reach - pads[d]);
    g.pad_end.push_back(reach - pads[d + 2] + out_pad[d]);
  }
  x = pad_spatial(b, x, g, {0, 0}, 0.0);
  std::vector<ValueId> operands{x, w};
  if (n.has(2)) operands.push_back(n.in(2));
  const ValueId y = b.op(OpKind::Conv2d, operands, {{"dilation", dil}, {"groups", groups}});
  n.set(0, one_d ? drop_value(b, y) : y);
}

void gemm(NodeContext& n) {
  GraphBuilder& b = n.b();
  const double alpha = n.attr_float("alpha", 1.0);
  const double beta = n.attr_float("beta", 1.0);
  const bool trans_a = n.attr_int("transA", 0) != 0;
  const bool trans_b = n.attr_int("transB", 0) != 0;
  if (n.opset() < 7) n.attr_int("broadcast", 0);
  if (n.rank(0) != 2 || n.rank(1) != 2) n.unsupported("A and B must be matrices");
  ValueId a = n.in(0);
  if (trans_a) a = b.transpose(a, {1, 0});
  const Shape& bs = n.shape(1);
  const int64_t cols = trans_b ? bs[0] : bs[1];
  if (trans_b && alpha == 1.0 && (beta == 1.0 || !n.has(2)) && (!n.has(2) || n.shape(2) == Shape{cols})) {
    return n.set(0, n.has(2) ? b.linear(a, n.in(1), n.in(2)) : b.linear(a, n.in(1)));
  }
  ValueId y = b.matmul(a, trans_b ? b.transpose(n.in(1), {1, 0}) : n.in(1));
  if (alpha != 1.0) y = b.mul(y, b.constant(alpha));
  if (n.has(2)) {
    ValueId c = n.in(2);
    if (beta != 1.0) c = b.mul(c, b.constant(beta));
    y = b.add(y, c);
  }
  n.set(0, y);
}

void matmul(NodeContext& n) {
  GraphBuilder& b = n.b();
  ValueId a = n.in(0);
  ValueId c = n.in(1);
  const bool vec_a = n.rank(0) == 1;
  const bool vec_c = n.rank(1) == 1;
  if (vec_a) a = b.reshape(a, {1, n.shape(0)[0]});
  if (vec_c) c = b.reshape(c, {n.shape(1)[0], 1});
  ValueId y = b.matmul(a, c);
  if (vec_a || vec_c) {
    Shape s = b.shape(y);
    if (vec_c) s.pop_back();
    if (vec_a) s.erase(s.end() - (vec_c ? 1 : 2));
    y = b.reshape(y, s);
  }
  n.set(0, y);
}

void batch_norm(NodeContext& n) {
  GraphBuilder& b = n.b();
  const double eps = n.attr_float("epsilon", 1e-5);
  n.attr_float("momentum", 0.9);
  if (n.opset() < 7) {
    n.attr_int("is_test", 1);
    n.attr_ints("consumed_inputs", {});
  }
  if (n.opset() < 9 && n.attr_int("spatial", 1) != 1) n.unsupported("spatial=0");
  if (n.attr_int("training_mode", 0) != 0) n.unsupported("training_mode=1");
  const Shape s = n.shape(0);
  if (s.size() < 2) n.unsupported("an input of rank < 2");
  Shape four{s[0], s[1], 1, s.size() > 3 ? s.back() : 1};  // [N,C,rest...,last]
  for (size_t d = 2; d < s.size() - (s.size() > 3 ? 1 : 0); ++d) four[2] *= s[d];
  ValueId x = s.size() == 4 ? n.in(0) : b.reshape(n.in(0), four);
  ValueId y = b.op(OpKind::BatchNorm, {x, n.in(1), n.in(2), n.in(3), n.in(4)}, {{"eps", eps}});
  n.set(0, s.size() == 4 ? y : b.reshape(y, s));
}

void pool(NodeContext& n, bool is_max) {
  check_spatial_rank(n, false);
  GraphBuilder& b = n.b();
  const bool one_d = n.rank(0) == 3;
  const std::vector<int64_t> kernel = n.attr_ints("kernel_shape", {});
  if (kernel.size() != spatial(n.shape(0)).size()) n.unsupported("kernel_shape must give every spatial dim");
  Geometry g = geometry(n, kernel, spatial(n.shape(0)));
  const bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = !is_max && n.attr_int("count_include_pad", 0) != 0;
  if (is_max && n.attr_int("storage_order", 0) != 0) n.unsupported("storage_order=1");
  for (int64_t d : g.dilation) {
    if (d != 1) n.unsupported("dilations other than 1");
  }
  ValueId x = n.in(0);
  if (one_d) {
    lift(g);
    x = lift_value(b, x);
  }
  const Shape s = b.shape(x);
  std::vector<int64_t> extra{0, 0};  // ceil_mode: padding at the end for the last partial window
  for (size_t d = 0; d < 2 && ceil_mode; ++d) {
    const int64_t in = s[d + 2] + g.pad_begin[d] + g.pad_end[d];
    int64_t out = (in - g.kernel[d] + g.stride[d] - 1) / g.stride[d] + 1;
    if ((out - 1) * g.stride[d] >= s[d + 2] + g.pad_begin[d]) --out;  // the last window starts inside
    extra[d] = std::max<int64_t>(0, (out - 1) * g.stride[d] + g.kernel[d] - in);
  }
  const bool plain = g.symmetric() && extra == std::vector<int64_t>{0, 0} &&
                     2 * g.pad_begin[0] <= g.kernel[0] && 2 * g.pad_begin[1] <= g.kernel[1];
  const std::vector<int64_t> no_pad{0, 0};
  ValueId y;
  if (is_max) {
    if (!plain) x = pad_spatial(b, x, g, extra, -HUGE_VAL);
    y = b.op(OpKind::MaxPool2d, {x}, {{"kernel", g.kernel}, {"stride", g.stride}, {"padding", plain ? g.pad_begin : no_pad}});
  } else if (plain) {
    y = b.op(OpKind::AvgPool2d, {x},
             {{"kernel", g.kernel}, {"stride", g.stride}, {"padding", g.pad_begin}, {"count_include_pad", int64_t{include_pad}}});
  } else {
    // Sum over the window divided by the count of counted positions: both
    // as averages over the zero-padded window, whose divisors cancel.
    const Attrs attrs{{"kernel", g.kernel}, {"stride", g.stride}, {"count_include_pad", int64_t{1}}};
    const ValueId sums = b.op(OpKind::AvgPool2d, {pad_spatial(b, x, g, extra, 0.0)}, attrs);
    ValueId mask = b.constant(1.0, {1, 1, s[2], s[3]}, b.type(x).dtype);
    if (!include_pad) {
      mask = pad_spatial(b, mask, g, extra, 0.0);
    } else {
      mask = pad_spatial(b, pad_spatial(b, mask, g, no_pad, 1.0), Geometry{{}, {}, {}, no_pad, no_pad}, extra, 0.0);
    }
    y = b.div(sums, b.op(OpKind::AvgPool2d, {mask}, attrs));
  }
  if (n.output_used(1)) n.unsupported("the indices output");
  n.set(0, one_d ? drop_value(b, y) : y);
}

void global_pool(NodeContext& n, bool is_max) {
  if (!is_max && n.rank(0) == 4) return n.set(0, n.b().op(OpKind::GlobalAvgPool2d, {n.in(0)}));
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < n.rank(0); ++d) axes.push_back(d);
  n.set(0, n.b().op(is_max ? OpKind::ReduceMax : OpKind::ReduceMean, {n.in(0)}, {{"axes", axes}, {"keepdim", int64_t{1}}}));
}

void layer_norm(NodeContext& n) {
  GraphBuilder& b = n.b();
  const Shape s = n.shape(0);
  const auto axis = static_cast<size_t>(normalize_axis(n.attr_int("axis", -1), static_cast<int64_t>(s.size())));
  const double eps = n.attr_float("epsilon", 1e-5);
  n.attr_int("stash_type", 1);
  int64_t d = 1;
  for (size_t k = axis; k < s.size(); ++k) d *= s[k];
  Shape flat(s.begin(), s.begin() + static_cast<long>(axis));
  flat.push_back(d);
  const ValueId x = axis + 1 == s.size() ? n.in(0) : b.reshape(n.in(0), flat);
  const ValueId gamma = b.reshape(n.in(1), {d});
  const ValueId beta = n.has(2) ? b.reshape(n.in(2), {d}) : b.constant(0.0, {d}, n.type(0).dtype);
  const ValueId y = b.op(OpKind::LayerNorm, {x, gamma, beta}, {{"eps", eps}});
  n.set(0, axis + 1 == s.size() ? y : b.reshape(y, s));
  if (n.output_used(1) || n.output_used(2)) {  // Mean and InvStdDev, kept dims
    const ValueId mean = b.op(OpKind::ReduceMean, {x}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
    const ValueId centered = b.sub(x, mean);
    const ValueId var = b.op(OpKind::ReduceMean, {b.mul(centered, centered)}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
    Shape kept = s;
    for (size_t k = axis; k < s.size(); ++k) kept[k] = 1;
    n.set(1, b.reshape(mean, kept));
    if (n.output_used(2)) n.set(2, b.reshape(b.op(OpKind::Rsqrt, {b.add(var, b.constant(eps))}), kept));
  }
}

void instance_norm(NodeContext& n) {
  GraphBuilder& b = n.b();
  if (n.rank(0) < 3) n.unsupported("an input of rank < 3");
  const double eps = n.attr_float("epsilon", 1e-5);
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < n.rank(0); ++d) axes.push_back(d);
  const Attrs mean_attrs{{"axes", axes}, {"keepdim", int64_t{1}}};
  const ValueId x = n.in(0);
  const ValueId centered = b.sub(x, b.op(OpKind::ReduceMean, {x}, mean_attrs));
  const ValueId var = b.op(OpKind::ReduceMean, {b.mul(centered, centered)}, mean_attrs);
  const ValueId normed = b.mul(centered, b.op(OpKind::Rsqrt, {b.add(var, b.constant(eps))}));
  Shape per_channel(static_cast<size_t>(n.rank(0)) - 1, 1);
  per_channel[0] = n.shape(0)[1];
  n.set(0, b.add(b.mul(normed, b.reshape(n.in(1), per_channel)), b.reshape(n.in(2), per_channel)));
}

// ---- Resize ----

struct ResizeMode {
  std::string mode, transform, nearest;
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

// `out` is the output length before flooring (in * scale), as the spec's
// align_corners formula uses it.
double source_coordinate(const ResizeMode& m, int64_t x, double scale, int64_t in, double out) {
  const auto xd = static_cast<double>(x);
  if (m.transform == "half_pixel") return (xd + 0.5) / scale - 0.5;
  if (m.transform == "pytorch_half_pixel") return out > 1 ? (xd + 0.5) / scale - 0.5 : 0.0;
  if (m.transform == "align_corners") return out == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (out - 1);
  if (m.transform == "tf_half_pixel_for_nn") return (xd + 0.5) / scale;
  return xd / scale;  // asymmetric
}

double cubic_weight(double s, double a) {
  s = std::fabs(s);
  if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
  if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  return 0;
}

// The [in, out] matrix whose columns interpolate one output position each.
Tensor interpolation(const ResizeMode& m, int64_t in, int64_t out, double scale) {
  const double out_unfloored = static_cast<double>(in) * scale;
  std::vector<float> v(static_cast<size_t>(in * out), 0.0f);
  auto put = [&](int64_t src, int64_t dst, double w) {
    src = std::clamp<int64_t>(src, 0, in - 1);
    v[static_cast<size_t>(src * out + dst)] += static_cast<float>(w);
  };
  for (int64_t o = 0; o < out; ++o) {
    const double x = source_coordinate(m, o, scale, in, out_unfloored);
    if (m.mode == "nearest") {
      const double f = std::floor(x);
      const double frac = x - f;
      int64_t i;
      if (m.nearest == "floor") i = static_cast<int64_t>(f);
      else if (m.nearest == "ceil") i = static_cast<int64_t>(std::ceil(x));
      else if (m.nearest == "round_prefer_ceil") i = static_cast<int64_t>(frac >= 0.5 ? f + 1 : f);
      else i = static_cast<int64_t>(frac > 0.5 ? f + 1 : f);  // round_prefer_floor
      put(i, o, 1.0);
    } else if (m.mode == "linear") {
      const double c = std::clamp(x, 0.0, static_cast<double>(in - 1));
      const auto i0 = static_cast<int64_t>(std::floor(c));
      const double w = c - static_cast<double>(i0);
      put(i0, o, 1.0 - w);
      put(std::min(i0 + 1, in - 1), o, w);
    } else {  // cubic
      const double f = std::floor(x);
      const double t = x - f;
      double weights[4];
      double total = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t i = static_cast<int64_t>(f) + k - 1;
        weights[k] = cubic_weight(t - (k - 1), m.cubic_a);
        if (m.exclude_outside && (i < 0 || i >= in)) weights[k] = 0;
        total += weights[k];
      }
      for (int k = 0; k < 4; ++k) {
        put(static_cast<int64_t>(f) + k - 1, o, m.exclude_outside ? weights[k] / total : weights[k]);
      }
    }
  }
  return f32_tensor(v, {in, out});
}

void resize(NodeContext& n, bool upsample) {
  ResizeMode m;
  m.mode = n.attr_string("mode", "nearest");
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "bilinear" && m.mode != "cubic") n.unsupported("mode '" + m.mode + "'");
  if (m.mode == "bilinear") m.mode = "linear";
  const bool v11 = !upsample && n.opset() >= 11;
  m.transform = v11 ? n.attr_string("coordinate_transformation_mode", "half_pixel") : "asymmetric";
  m.nearest = v11 ? n.attr_string("nearest_mode", "round_prefer_floor") : "floor";
  if (!v11 && !upsample) m.nearest = "round_prefer_floor";
  if (v11) {
    m.cubic_a = n.attr_float("cubic_coeff_a", -0.75);
    m.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
    n.attr_float("extrapolation_value", 0.0);
  }
  if (m.transform == "tf_crop_and_resize") n.unsupported("coordinate_transformation_mode 'tf_crop_and_resize'");
  if (n.attr_int("antialias", 0) != 0) n.unsupported("antialias=1");
  if (n.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch") n.unsupported("keep_aspect_ratio_policy");
  const Shape s = n.shape(0);
  std::vector<int64_t> axes = n.attr_ints("axes", {});
  if (axes.empty()) {
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) axes.push_back(d);
  }
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (upsample) {
    scales = n.opset() < 9 ? n.attr_floats("scales", {}) : n.floats(1, "scales");
  } else if (!v11) {
    scales = n.floats(1, "scales");
  } else {
    if (n.has(2) && n.data(2) != nullptr && n.data(2)->numel() > 0) scales = n.floats(2, "scales");
    else sizes = n.ints(3, "sizes");
  }
  if (scales.size() + sizes.size() != axes.size()) n.unsupported("scales/sizes must give every resized axis");
  ValueId x = n.in(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t axis = normalize_axis(axes[k], static_cast<int64_t>(s.size()));
    const int64_t in = s[static_cast<size_t>(axis)];
    if (!sizes.empty() ? sizes[k] <= 0 : !(scales[k] > 0 && scales[k] < 1e6)) n.unsupported("scales/sizes must be positive");
    const int64_t out = sizes.empty() ? static_cast<int64_t>(std::floor(static_cast<double>(in) * scales[k])) : sizes[k];
    if (in > 0 && out > (int64_t{1} << 26) / in) n.unsupported("an interpolation matrix of " + std::to_string(in) + " x " + std::to_string(out));
    const double scale = sizes.empty() ? scales[k] : static_cast<double>(out) / static_cast<double>(in);
    if (out == in && scale == 1.0) continue;
    if (out <= 0 || in <= 0) n.unsupported("an empty resized dimension");
    const ValueId matrix = n.constant(interpolation(m, in, out, scale));
    x = along_last_axis(n.b(), x, axis, [&](ValueId v) { return n.b().matmul(v, matrix); });
  }
  n.set(0, x);
}

}  // namespace

void add_nn_converters(ConverterTable& t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["Gemm"] = gemm;
  t["MatMul"] = matmul;
  t["BatchNormalization"] = batch_norm;
  t["MaxPool"] = [](NodeContext& n) { pool(n, true); };
  t["AveragePool"] = [](NodeContext& n) { pool(n, false); };
  t["GlobalAveragePool"] = [](NodeContext& n) { global_pool(n, false); };
  t["GlobalMaxPool"] = [](NodeContext& n) { global_pool(n, true); };
  t["LayerNormalization"] = layer_norm;
  t["InstanceNormalization"] = instance_norm;
  t["Resize"] = [](NodeContext& n) { resize(n, false); };
  t["Upsample"] = [](NodeContext& n) { resize(n, true); };
}

}  // namespace meshtest::frontends::onnx_import
