// Reference neural-network kernels: max/avg/global-avg pooling, batch_norm
// (inference, given statistics), layer_norm and numerically stable softmax.
// Sums and statistics accumulate in double.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

PoolGeometry pool_geometry(const Tensor& x, const Attrs& attrs, const char* op) {
  require_f32(x, op);
  if (x.rank() != 4) throw RuntimeError(std::string(op) + " input must have rank 4, got " + shape_to_string(x.shape()));
  const auto kernel = pair_attr(attrs, "kernel", 1);
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  PoolGeometry g{x.dim(0) * x.dim(1), x.dim(2), x.dim(3), kernel[0], kernel[1], stride[0],
                 stride[1],           pad[0],   pad[1],   0,         0};
  if (g.kh <= 0 || g.kw <= 0 || g.sh <= 0 || g.sw <= 0 || g.ph < 0 || g.pw < 0) {
    throw RuntimeError("pool kernel and stride must be positive, padding non-negative");
  }
  g.out_h = (g.height + 2 * g.ph - g.kh) / g.sh + 1;
  g.out_w = (g.width + 2 * g.pw - g.kw) / g.sw + 1;
  if (g.out_h <= 0 || g.out_w <= 0) throw RuntimeError("pool window larger than padded input");
  return g;
}

namespace {

// Calls fn(in_plane, out_plane) for every N*C plane, in parallel.
template <class F>
Tensor for_each_pool_plane(const Tensor& x, const PoolGeometry& g, F fn) {
  Tensor out(DType::F32, {x.dim(0), x.dim(1), g.out_h, g.out_w});
  const float* px = x.data<float>();
  float* po = out.data<float>();
  const int64_t per_plane = std::max<int64_t>(1, g.out_h * g.out_w * g.kh * g.kw);
  parallel_ranges(g.planes, std::max<int64_t>(1, kElementGrain / per_plane), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) fn(px + p * g.height * g.width, po + p * g.out_h * g.out_w);
  });
  return out;
}

}  // namespace

Tensor max_pool2d(const Tensor& x, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x, attrs, "max_pool2d input");
  return for_each_pool_plane(x, g, [&g](const float* in, float* out) {
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        // Padding is -inf: only real elements can win; NaN propagates.
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t ih = oh * g.sh - g.ph + i;
          if (ih < 0 || ih >= g.height) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t iw = ow * g.sw - g.pw + j;
            if (iw < 0 || iw >= g.width) continue;
            const float v = in[ih * g.width + iw];
            if (v > best || std::isnan(v)) best = v;
            if (std::isnan(best)) break;
          }
        }
        out[oh * g.out_w + ow] = best;
      }
    }
  });
}

Tensor avg_pool2d(const Tensor& x, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x, attrs, "avg_pool2d input");
  // PyTorch's default: padded zeros count in the divisor.
  const bool count_pad = attrs.get_int("count_include_pad", 1) != 0;
  return for_each_pool_plane(x, g, [&g, count_pad](const float* in, float* out) {
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        double sum = 0.0;
        int64_t count = 0;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t ih = oh * g.sh - g.ph + i;
          if (ih < 0 || ih >= g.height) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t iw = ow * g.sw - g.pw + j;
            if (iw < 0 || iw >= g.width) continue;
            sum += in[ih * g.width + iw];
            ++count;
          }
        }
        // Windows never leave the padded input, so the padded count is kh*kw.
        const int64_t divisor = count_pad ? g.kh * g.kw : count;
        out[oh * g.out_w + ow] = divisor == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(divisor));
      }
    }
  });
}

Tensor global_avg_pool2d(const Tensor& x) {
  require_f32(x, "global_avg_pool2d input");
  if (x.rank() != 4) throw RuntimeError("global_avg_pool2d input must have rank 4, got " + shape_to_string(x.shape()));
  Tensor out(DType::F32, {x.dim(0), x.dim(1), 1, 1});
  const int64_t plane = x.dim(2) * x.dim(3);
  const float* px = x.data<float>();
  float* po = out.data<float>();
  parallel_ranges(x.dim(0) * x.dim(1), std::max<int64_t>(1, kElementGrain / std::max<int64_t>(plane, 1)),
                  [&](int64_t p0, int64_t p1) {
                    for (int64_t p = p0; p < p1; ++p) {
                      double sum = 0.0;
                      for (int64_t i = 0; i < plane; ++i) sum += px[p * plane + i];
                      po[p] = static_cast<float>(sum / static_cast<double>(plane));
                    }
                  });
  return out;
}

Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& var,
                  const Attrs& attrs) {
  require_f32(x, "batch_norm input");
  for (const Tensor* p : {&scale, &bias, &mean, &var}) {
    require_f32(*p, "batch_norm parameter");
    if (x.rank() != 4 || p->shape() != Shape{x.dim(1)}) {
      throw RuntimeError("batch_norm parameter " + shape_to_string(p->shape()) + " does not match input " +
                         shape_to_string(x.shape()));
    }
  }
  const double eps = attrs.get_float("eps", 1e-5);
  const int64_t channels = x.dim(1);
  const int64_t plane = x.dim(2) * x.dim(3);
  // y = (x - mean) * (scale / sqrt(var + eps)) + bias, per channel in double.
  std::vector<double> mul(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    mul[static_cast<size_t>(c)] = scale.data<float>()[c] / std::sqrt(static_cast<double>(var.data<float>()[c]) + eps);
  }
  Tensor out(DType::F32, x.shape());
  const float* px = x.data<float>();
  const float* pmean = mean.data<float>();
  const float* pbias = bias.data<float>();
  float* po = out.data<float>();
  parallel_ranges(x.dim(0) * channels, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(plane, 1)),
                  [&](int64_t p0, int64_t p1) {
                    for (int64_t p = p0; p < p1; ++p) {
                      const int64_t c = p % channels;
                      const double m = pmean[c], a = mul[static_cast<size_t>(c)], b = pbias[c];
                      for (int64_t i = 0; i < plane; ++i) {
                        po[p * plane + i] = static_cast<float>((px[p * plane + i] - m) * a + b);
                      }
                    }
                  });
  return out;
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Attrs& attrs) {
  require_f32(x, "layer_norm input");
  require_f32(gamma, "layer_norm gamma");
  require_f32(beta, "layer_norm beta");
  if (x.rank() < 1 || gamma.shape() != Shape{x.dim(-1)} || beta.shape() != Shape{x.dim(-1)}) {
    throw RuntimeError("layer_norm gamma " + shape_to_string(gamma.shape()) + " / beta " +
                       shape_to_string(beta.shape()) + " do not match input " + shape_to_string(x.shape()));
  }
  const double eps = attrs.get_float("eps", 1e-5);
  const int64_t d = x.dim(-1);
  const int64_t rows = d == 0 ? 0 : x.numel() / d;
  Tensor out(DType::F32, x.shape());
  const float* px = x.data<float>();
  const float* pg = gamma.data<float>();
  const float* pb = beta.data<float>();
  float* po = out.data<float>();
  parallel_ranges(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(d, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* in = px + r * d;
      float* o = po + r * d;
      double sum = 0.0;
      for (int64_t i = 0; i < d; ++i) sum += in[i];
      const double mean = sum / static_cast<double>(d);
      double sq = 0.0;  // two-pass biased variance
      for (int64_t i = 0; i < d; ++i) sq += (in[i] - mean) * (in[i] - mean);
      const double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
      for (int64_t i = 0; i < d; ++i) o[i] = static_cast<float>((in[i] - mean) * inv * pg[i] + pb[i]);
    }
  });
  return out;
}

Tensor softmax(const Tensor& x, const Attrs& attrs) {
  require_f32(x, "softmax input");
  const int64_t rank = x.rank();
  int64_t axis = attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw RuntimeError("softmax axis out of range for " + shape_to_string(x.shape()));
  const int64_t len = x.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dim(d);
  const int64_t lines = len == 0 ? 0 : x.numel() / len;  // one softmax per (outer, inner) pair
  Tensor out(DType::F32, x.shape());
  const float* px = x.data<float>();
  float* po = out.data<float>();
  parallel_ranges(lines, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(len, 1)), [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) {
      const int64_t base = (l / inner) * len * inner + l % inner;
      const float* in = px + base;
      float* o = po + base;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < len; ++i) max = std::max(max, in[i * inner]);
      double sum = 0.0;
      for (int64_t i = 0; i < len; ++i) {
        const float e = std::exp(in[i * inner] - max);
        o[i * inner] = e;
        sum += e;
      }
      const double inv = 1.0 / sum;
      for (int64_t i = 0; i < len; ++i) o[i * inner] = static_cast<float>(o[i * inner] * inv);
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
