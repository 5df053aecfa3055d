// Reference kernels of the backward ops compiler/autodiff emits (core/ops.h,
// "Backward ops"): greater, conv2d_backward_input / _weight, max / avg
// pool2d_backward, embedding_backward and slice_backward. Direct loops in the
// gather form (each output element sums its own contributions in double), so
// no two tasks write the same element. Shares nothing with runtime/device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

namespace {

// Element strides of `in` read as a broadcast operand of a result of `out` shape.
std::vector<int64_t> stretched_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  const std::vector<int64_t> own = shape_strides(in);
  const size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) s[lead + d] = in[d] == 1 ? 0 : own[d];
  return s;
}

// Flat offset into a broadcast operand of the output element `flat`.
int64_t broadcast_offset(int64_t flat, const Shape& out, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = out.size(); d-- > 0;) {
    offset += (flat % out[d]) * strides[d];
    flat /= out[d];
  }
  return offset;
}

struct ConvGeometry {
  int64_t n, c, h, w;     // input
  int64_t o, cg, kh, kw;  // weight [O, C/g, KH, KW]
  int64_t oh, ow;         // output
  int64_t groups, og;     // groups, output channels per group
  int64_t sh, sw, ph, pw, dh, dw;
};

ConvGeometry conv_geometry(const Shape& x, const Shape& w, const Shape& y, const Attrs& attrs) {
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  const auto dil = pair_attr(attrs, "dilation", 1);
  const int64_t groups = attrs.get_int("groups", 1);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4 || groups <= 0 || w[0] % groups != 0) {
    throw RuntimeError("conv2d backward: bad operand ranks or groups");
  }
  return {x[0], x[1],   x[2],          x[3],      w[0],      w[1],   w[2],   w[3],   y[2],
          y[3], groups, w[0] / groups, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1]};
}

// Output coordinate whose window puts kernel tap `k` on input coordinate `i`, or -1.
int64_t window_of(int64_t i, int64_t k, int64_t stride, int64_t pad, int64_t dilation, int64_t out_extent) {
  const int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t o = t / stride;
  return o < out_extent ? o : -1;
}

struct PoolWindows {
  int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

PoolWindows pool_windows(const Shape& x, const Shape& y, const Attrs& attrs) {
  const auto kernel = pair_attr(attrs, "kernel", 1);
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  return {x[0] * x[1], x[2], x[3], y[2], y[3], kernel[0], kernel[1], stride[0], stride[1], pad[0], pad[1]};
}

// Calls fn(plane) for every N*C plane of a pooling backward, in parallel.
template <class F>
void for_each_plane(int64_t planes, int64_t work_per_plane, F fn) {
  parallel_ranges(planes, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, work_per_plane)),
                  [&](int64_t p0, int64_t p1) {
                    for (int64_t p = p0; p < p1; ++p) fn(p);
                  });
}

template <class Id>
Tensor scatter_rows(const Tensor& ids, const Tensor& dy, int64_t rows) {
  const int64_t d = dy.dim(-1);
  const int64_t n = ids.numel();
  const Id* pi = ids.data<Id>();
  for (int64_t i = 0; i < n; ++i) {
    if (pi[i] < 0 || pi[i] >= rows) {
      throw RuntimeError("embedding_backward id " + std::to_string(pi[i]) + " out of range [0, " +
                         std::to_string(rows) + ")");
    }
  }
  std::vector<double> acc(static_cast<size_t>(rows * d), 0.0);
  const float* py = dy.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    double* row = acc.data() + pi[i] * d;
    for (int64_t j = 0; j < d; ++j) row[j] += py[i * d + j];
  }
  Tensor out(DType::F32, {rows, d});
  std::transform(acc.begin(), acc.end(), out.data<float>(), [](double v) { return static_cast<float>(v); });
  return out;
}

}  // namespace

Tensor greater(const Tensor& a, const Tensor& b) {
  require_f32(a, "greater lhs");
  require_f32(b, "greater rhs");
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const auto sa = stretched_strides(a.shape(), shape);
  const auto sb = stretched_strides(b.shape(), shape);
  Tensor out(DType::F32, shape);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  parallel_ranges(out.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      po[i] = pa[broadcast_offset(i, shape, sa)] > pb[broadcast_offset(i, shape, sb)] ? 1.0f : 0.0f;
    }
  });
  return out;
}

Tensor conv2d_backward_input(const Tensor& dy, const Tensor& w, const Attrs& attrs) {
  require_f32(dy, "conv2d_backward_input dy");
  require_f32(w, "conv2d_backward_input weight");
  const Shape x_shape = attrs.get_ints("input_shape");
  const ConvGeometry g = conv_geometry(x_shape, w.shape(), dy.shape(), attrs);
  Tensor dx(DType::F32, x_shape);
  const float* py = dy.data<float>();
  const float* pw = w.data<float>();
  float* px = dx.data<float>();
  for_each_plane(g.n * g.c, g.h * g.w * g.og * g.kh * g.kw, [&](int64_t plane) {
    const int64_t n = plane / g.c, c = plane % g.c;
    const int64_t group = c / g.cg, cl = c % g.cg;
    for (int64_t ih = 0; ih < g.h; ++ih) {
      for (int64_t iw = 0; iw < g.w; ++iw) {
        double sum = 0.0;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t oh = window_of(ih, i, g.sh, g.ph, g.dh, g.oh);
          if (oh < 0) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ow = window_of(iw, j, g.sw, g.pw, g.dw, g.ow);
            if (ow < 0) continue;
            for (int64_t o = group * g.og; o < (group + 1) * g.og; ++o) {
              sum += static_cast<double>(py[((n * g.o + o) * g.oh + oh) * g.ow + ow]) *
                     pw[((o * g.cg + cl) * g.kh + i) * g.kw + j];
            }
          }
        }
        px[(plane * g.h + ih) * g.w + iw] = static_cast<float>(sum);
      }
    }
  });
  return dx;
}

Tensor conv2d_backward_weight(const Tensor& x, const Tensor& dy, const Attrs& attrs) {
  require_f32(x, "conv2d_backward_weight input");
  require_f32(dy, "conv2d_backward_weight dy");
  const Shape w_shape = attrs.get_ints("weight_shape");
  const ConvGeometry g = conv_geometry(x.shape(), w_shape, dy.shape(), attrs);
  Tensor dw(DType::F32, w_shape);
  const float* px = x.data<float>();
  const float* py = dy.data<float>();
  float* pw = dw.data<float>();
  for_each_plane(g.o * g.cg, g.kh * g.kw * g.n * g.oh * g.ow, [&](int64_t plane) {
    const int64_t o = plane / g.cg, cl = plane % g.cg;
    const int64_t c = (o / g.og) * g.cg + cl;
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        double sum = 0.0;
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + i * g.dh;
            if (ih < 0 || ih >= g.h) continue;
            for (int64_t ow = 0; ow < g.ow; ++ow) {
              const int64_t iw = ow * g.sw - g.pw + j * g.dw;
              if (iw < 0 || iw >= g.w) continue;
              sum += static_cast<double>(px[((n * g.c + c) * g.h + ih) * g.w + iw]) *
                     py[((n * g.o + o) * g.oh + oh) * g.ow + ow];
            }
          }
        }
        pw[(plane * g.kh + i) * g.kw + j] = static_cast<float>(sum);
      }
    }
  });
  return dw;
}

Tensor max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs) {
  require_f32(x, "max_pool2d_backward input");
  require_f32(dy, "max_pool2d_backward dy");
  const PoolWindows p = pool_windows(x.shape(), dy.shape(), attrs);
  std::vector<double> acc(static_cast<size_t>(x.numel()), 0.0);
  const float* px = x.data<float>();
  const float* py = dy.data<float>();
  for_each_plane(p.planes, p.oh * p.ow * p.kh * p.kw, [&](int64_t plane) {
    const float* in = px + plane * p.h * p.w;
    double* grad = acc.data() + plane * p.h * p.w;
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      for (int64_t ow = 0; ow < p.ow; ++ow) {
        int64_t best_at = -1;
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < p.kh; ++i) {
          const int64_t ih = oh * p.sh - p.ph + i;
          if (ih < 0 || ih >= p.h) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            const int64_t iw = ow * p.sw - p.pw + j;
            if (iw < 0 || iw >= p.w) continue;
            if (best_at < 0 || in[ih * p.w + iw] > best) {
              best = in[ih * p.w + iw];
              best_at = ih * p.w + iw;
            }
          }
        }
        if (best_at >= 0) grad[best_at] += py[(plane * p.oh + oh) * p.ow + ow];
      }
    }
  });
  Tensor dx(DType::F32, x.shape());
  std::transform(acc.begin(), acc.end(), dx.data<float>(), [](double v) { return static_cast<float>(v); });
  return dx;
}

Tensor avg_pool2d_backward(const Tensor& dy, const Attrs& attrs) {
  require_f32(dy, "avg_pool2d_backward dy");
  const Shape x_shape = attrs.get_ints("input_shape");
  const PoolWindows p = pool_windows(x_shape, dy.shape(), attrs);
  const bool count_pad = attrs.get_int("count_include_pad", 1) != 0;
  std::vector<double> acc(static_cast<size_t>(shape_numel(x_shape)), 0.0);
  const float* py = dy.data<float>();
  for_each_plane(p.planes, p.oh * p.ow * p.kh * p.kw, [&](int64_t plane) {
    double* grad = acc.data() + plane * p.h * p.w;
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      for (int64_t ow = 0; ow < p.ow; ++ow) {
        const int64_t h0 = std::max<int64_t>(0, oh * p.sh - p.ph), h1 = std::min(p.h, oh * p.sh - p.ph + p.kh);
        const int64_t w0 = std::max<int64_t>(0, ow * p.sw - p.pw), w1 = std::min(p.w, ow * p.sw - p.pw + p.kw);
        const int64_t real = std::max<int64_t>(0, h1 - h0) * std::max<int64_t>(0, w1 - w0);
        const int64_t divisor = count_pad ? p.kh * p.kw : real;
        if (divisor == 0) continue;
        const double share = py[(plane * p.oh + oh) * p.ow + ow] / static_cast<double>(divisor);
        for (int64_t ih = h0; ih < h1; ++ih) {
          for (int64_t iw = w0; iw < w1; ++iw) grad[ih * p.w + iw] += share;
        }
      }
    }
  });
  Tensor dx(DType::F32, x_shape);
  std::transform(acc.begin(), acc.end(), dx.data<float>(), [](double v) { return static_cast<float>(v); });
  return dx;
}

Tensor embedding_backward(const Tensor& ids, const Tensor& dy, const Attrs& attrs) {
  require_f32(dy, "embedding_backward dy");
  const int64_t rows = attrs.get_int("num_embeddings");
  switch (ids.dtype()) {
    case DType::I32:
      return scatter_rows<int32_t>(ids, dy, rows);
    case DType::I64:
      return scatter_rows<int64_t>(ids, dy, rows);
    default:
      break;
  }
  throw RuntimeError("embedding_backward ids must be i32 or i64, got " + std::string(dtype_name(ids.dtype())));
}

Tensor slice_backward(const Tensor& dy, const Attrs& attrs) {
  require_f32(dy, "slice_backward dy");
  const Shape x_shape = attrs.get_ints("input_shape");
  const auto rank = static_cast<int64_t>(x_shape.size());
  const auto axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), rank));
  const int64_t dim = x_shape[axis];
  auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
  const int64_t start = clamp(attrs.get_int("start", 0));
  const int64_t step = attrs.get_int("step", 1);
  Tensor dx(DType::F32, x_shape);
  // outer x [len along axis] x inner: dy element (o, k, i) lands at (o, start + k*step, i).
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x_shape.size(); ++d) inner *= x_shape[d];
  const int64_t len = dy.dim(static_cast<int64_t>(axis));
  const int64_t outer = inner * len == 0 ? 0 : dy.numel() / (inner * len);
  const float* py = dy.data<float>();
  float* px = dx.data<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < len; ++k) {
      std::copy_n(py + (o * len + k) * inner, inner, px + (o * dim + start + k * step) * inner);
    }
  }
  return dx;
}

}  // namespace meshtest::runtime::reference
