// Device normalization and reduction kernels: batch_norm, layer_norm,
// softmax, reduce_sum/mean/max. bf16 in, f32 statistics and math, bf16 out.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

namespace {

std::vector<float> load_vector(const Tensor& t, const char* what) {
  require_bf16(t, what);
  const uint16_t* p = t.data<uint16_t>();
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_bf16(p[i]);
  return v;
}

// Rows of `row_elems` elements per parallel task, at least one row.
int64_t row_grain(int64_t row_elems) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(row_elems, 1)); }

// Offsets of every element of the sub-space spanned by `dims` (row-major).
std::vector<int64_t> subspace_offsets(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  std::vector<int64_t> offsets{0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(dims[d]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < dims[d]; ++i) next.push_back(base + i * strides[d]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

template <class T, class Acc, class Load, class Store>
void reduce_typed(OpKind kind, const T* in, T* out, const std::vector<int64_t>& out_offsets,
                  const std::vector<int64_t>& red_offsets, Load load, Store store) {
  const auto count = static_cast<int64_t>(red_offsets.size());
  parallel_ranges(static_cast<int64_t>(out_offsets.size()), row_grain(count), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const T* base = in + out_offsets[static_cast<size_t>(o)];
      if (kind == OpKind::ReduceMax) {
        Acc m = std::numeric_limits<Acc>::lowest();
        if constexpr (std::is_floating_point_v<Acc>) m = -std::numeric_limits<Acc>::infinity();
        bool nan = false;
        for (int64_t off : red_offsets) {
          const Acc v = load(base[off]);
          if constexpr (std::is_floating_point_v<Acc>) nan = nan || std::isnan(v);
          m = v > m ? v : m;
        }
        if constexpr (std::is_floating_point_v<Acc>) {
          if (nan) m = std::numeric_limits<Acc>::quiet_NaN();
        }
        out[o] = store(m);
      } else {
        Acc sum = 0;
        for (int64_t off : red_offsets) sum += load(base[off]);
        if (kind == OpKind::ReduceMean) sum = count == 0 ? sum : sum / static_cast<Acc>(count);
        out[o] = store(sum);
      }
    }
  });
}

}  // namespace

void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& var,
                const Attrs& attrs, Tensor& out) {
  require_bf16(x, "batch_norm input");
  const auto eps = static_cast<float>(attrs.get_float("eps", 1e-5));
  const std::vector<float> s = load_vector(scale, "batch_norm scale");
  const std::vector<float> b = load_vector(bias, "batch_norm bias");
  const std::vector<float> m = load_vector(mean, "batch_norm mean");
  const std::vector<float> v = load_vector(var, "batch_norm var");
  const int64_t channels = x.dim(1);
  const int64_t plane = x.dim(2) * x.dim(3);
  // y = x * a + c with a = scale / sqrt(var + eps), c = bias - mean * a.
  std::vector<float> a(s.size());
  std::vector<float> c(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    a[i] = s[i] / std::sqrt(v[i] + eps);
    c[i] = b[i] - m[i] * a[i];
  }
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  parallel_ranges(x.dim(0) * channels, row_grain(plane), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const auto ch = static_cast<size_t>(p % channels);
      const uint16_t* src = in + p * plane;
      uint16_t* dst = o + p * plane;
      for (int64_t i = 0; i < plane; ++i) dst[i] = store_bf16(load_bf16(src[i]) * a[ch] + c[ch]);
    }
  });
}

void layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Attrs& attrs, Tensor& out,
                int64_t variance_ddof) {
  require_bf16(x, "layer_norm input");
  const auto eps = static_cast<float>(attrs.get_float("eps", 1e-5));
  const std::vector<float> g = load_vector(gamma, "layer_norm gamma");
  const std::vector<float> b = load_vector(beta, "layer_norm beta");
  const int64_t d = x.dim(-1);
  const int64_t rows = d == 0 ? 0 : x.numel() / d;
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  parallel_ranges(rows, row_grain(d), [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(d));
    for (int64_t r = begin; r < end; ++r) {
      const uint16_t* src = in + r * d;
      float sum = 0.0f;
      for (int64_t i = 0; i < d; ++i) {
        row[static_cast<size_t>(i)] = load_bf16(src[i]);
        sum += row[static_cast<size_t>(i)];
      }
      const float mean = sum / static_cast<float>(d);
      float sq = 0.0f;
      for (float v : row) sq += (v - mean) * (v - mean);
      const float inv = 1.0f / std::sqrt(sq / static_cast<float>(d - variance_ddof) + eps);
      uint16_t* dst = o + r * d;
      for (int64_t i = 0; i < d; ++i) {
        const auto k = static_cast<size_t>(i);
        dst[i] = store_bf16((row[k] - mean) * inv * g[k] + b[k]);
      }
    }
  });
}

void softmax(const Tensor& x, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "softmax input");
  const int64_t axis = normalize_axis(attrs.get_int("axis", -1), x.rank());
  const int64_t len = x.dim(axis);
  int64_t inner = 1;
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.dim(i);
  const int64_t lines = len == 0 ? 0 : x.numel() / len;
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  parallel_ranges(lines, row_grain(len), [&](int64_t begin, int64_t end) {
    std::vector<float> line(static_cast<size_t>(len));
    for (int64_t l = begin; l < end; ++l) {
      const int64_t start = (l / inner) * len * inner + l % inner;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t i = 0; i < len; ++i) {
        const float v = load_bf16(in[start + i * inner]);
        line[static_cast<size_t>(i)] = v;
        max = std::isnan(v) || v > max ? v : max;
      }
      float sum = 0.0f;
      for (float& v : line) {
        v = std::exp(v - max);
        sum += v;
      }
      const float inv = 1.0f / sum;
      for (int64_t i = 0; i < len; ++i) o[start + i * inner] = store_bf16(line[static_cast<size_t>(i)] * inv);
    }
  });
}

void reduce(OpKind kind, const Tensor& x, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t> axes = attrs.get_ints("axes");
  std::vector<bool> reduced(static_cast<size_t>(x.rank()), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(normalize_axis(a, x.rank()))] = true;
  const std::vector<int64_t> strides = shape_strides(x.shape());
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  for (size_t i = 0; i < reduced.size(); ++i) {
    (reduced[i] ? red_dims : kept_dims).push_back(x.shape()[i]);
    (reduced[i] ? red_strides : kept_strides).push_back(strides[i]);
  }
  const std::vector<int64_t> out_offsets = subspace_offsets(kept_dims, kept_strides);
  const std::vector<int64_t> red_offsets = subspace_offsets(red_dims, red_strides);
  if (static_cast<int64_t>(out_offsets.size()) != out.numel() || x.dtype() != out.dtype()) {
    throw RuntimeError("reduce result " + type_to_string({out.dtype(), out.shape()}) + " does not match input " +
                       type_to_string({x.dtype(), x.shape()}));
  }
  switch (x.dtype()) {
    case DType::BF16:
      reduce_typed<uint16_t, float>(kind, x.data<uint16_t>(), out.data<uint16_t>(), out_offsets, red_offsets, load_bf16,
                                    store_bf16);
      return;
    case DType::I32:
      reduce_typed<int32_t, int64_t>(
          kind, x.data<int32_t>(), out.data<int32_t>(), out_offsets, red_offsets, [](int32_t v) { return int64_t{v}; },
          [](int64_t v) { return static_cast<int32_t>(v); });
      return;
    case DType::I64:
      reduce_typed<int64_t, int64_t>(
          kind, x.data<int64_t>(), out.data<int64_t>(), out_offsets, red_offsets, [](int64_t v) { return v; },
          [](int64_t v) { return v; });
      return;
    default:
      break;
  }
  throw RuntimeError("reductions do not support dtype " + std::string(dtype_name(x.dtype())) + " on the device");
}

}  // namespace meshtest::runtime::device_kernels
