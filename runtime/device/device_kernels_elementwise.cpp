// Device elementwise kernels: unary math, broadcasting binary ops, cast and
// constant. bf16 in, f32 math, bf16 out; integer binary ops in their own type,
// wrapping (device_kernels_stablehlo.cpp: division floors, as python's //, or
// truncates as StableHLO's).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/dtype_convert.h"
#include "core/error.h"
#include "core/simd.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

namespace {

constexpr int64_t kGrain = 16384;  // elements per parallel task

float gelu_erf(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }
float gelu_tanh(float x) {
  const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}
float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Results rounded in blocks by simd::f32_to_bf16 (the same bits as
// store_bf16, vectorized; see bf16_binary_run below), or by store_bf16 itself
// under the bf16_truncation mutant.
constexpr int64_t kBf16Block = 512;

template <class Fn>
void map_bf16(const Tensor& x, Tensor& out, const Fn& fn) {
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  const bool blocks = !mutant_active(MutantId::Bf16Truncation);
  parallel_ranges(x.numel(), kGrain, [&](int64_t begin, int64_t end) {
    if (!blocks) {
      for (int64_t i = begin; i < end; ++i) o[i] = store_bf16(fn(load_bf16(in[i])));
      return;
    }
    float block[kBf16Block];
    for (int64_t i0 = begin; i0 < end; i0 += kBf16Block) {
      const int64_t m = std::min(kBf16Block, end - i0);
      for (int64_t j = 0; j < m; ++j) block[j] = fn(load_bf16(in[i0 + j]));
      simd::f32_to_bf16(block, o + i0, m);
    }
  });
}

// Broadcast iteration space: collapsed output dims with per-operand element
// strides (0 where an operand is broadcast).
struct BroadcastLoop {
  std::vector<int64_t> dims;
  std::vector<int64_t> stride_a;
  std::vector<int64_t> stride_b;
};

std::vector<int64_t> aligned_strides(const Shape& in, const Shape& out) {
  const std::vector<int64_t> own = shape_strides(in);
  const size_t lead = out.size() - in.size();
  std::vector<int64_t> s(out.size(), 0);
  for (size_t i = lead; i < out.size(); ++i) s[i] = in[i - lead] == 1 ? 0 : own[i - lead];
  return s;
}

BroadcastLoop plan_broadcast(const Shape& a, const Shape& b, const Shape& out) {
  const std::vector<int64_t> sa = aligned_strides(a, out);
  const std::vector<int64_t> sb = aligned_strides(b, out);
  BroadcastLoop loop;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 1) continue;
    if (!loop.dims.empty() && loop.stride_a.back() == sa[i] * out[i] && loop.stride_b.back() == sb[i] * out[i]) {
      loop.dims.back() *= out[i];
      loop.stride_a.back() = sa[i];
      loop.stride_b.back() = sb[i];
      continue;
    }
    loop.dims.push_back(out[i]);
    loop.stride_a.push_back(sa[i]);
    loop.stride_b.push_back(sb[i]);
  }
  if (loop.dims.empty()) loop = {{1}, {0}, {0}};
  return loop;
}

float to_compute(uint16_t v) { return load_bf16(v); }
int64_t to_compute(uint8_t v) { return v; }
template <class T>
T from_compute(float v);
template <>
uint16_t from_compute<uint16_t>(float v) {
  return store_bf16(v);
}
template <class T>
T from_compute(int64_t v) {
  if constexpr (std::is_same_v<T, uint8_t>) return v != 0;
  return static_cast<T>(v);
}

// o[j] = store_bf16(fn(a[j * sa], b[j * sb])), j < n: the f32 results of a
// block are rounded together by simd::f32_to_bf16, the same bits as
// store_bf16 (tests/core/simd_test.cpp) but vectorized; the common strides
// (contiguous, or one side a broadcast scalar) get loops of their own so the
// compiler vectorizes fn too. The bf16_truncation mutant keeps store_bf16's
// own path (the caller's).
template <class Fn>
void bf16_binary_run(const uint16_t* a, int64_t sa, const uint16_t* b, int64_t sb, uint16_t* o, int64_t n,
                     const Fn& fn) {
  constexpr int64_t kBlock = kBf16Block;
  float block[kBlock];
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t m = std::min(kBlock, n - j0);
    const uint16_t* pa = a + j0 * sa;
    const uint16_t* pb = b + j0 * sb;
    if (sa == 1 && sb == 1) {
      for (int64_t j = 0; j < m; ++j) block[j] = fn(load_bf16(pa[j]), load_bf16(pb[j]));
    } else if (sa == 1 && sb == 0) {
      const float y = load_bf16(*pb);
      for (int64_t j = 0; j < m; ++j) block[j] = fn(load_bf16(pa[j]), y);
    } else if (sa == 0 && sb == 1) {
      const float x = load_bf16(*pa);
      for (int64_t j = 0; j < m; ++j) block[j] = fn(x, load_bf16(pb[j]));
    } else {
      for (int64_t j = 0; j < m; ++j) block[j] = fn(load_bf16(pa[j * sa]), load_bf16(pb[j * sb]));
    }
    simd::f32_to_bf16(block, o + j0, m);
  }
}

// out[i] = fn(a[ia], b[ib]) over the broadcast loop, split by rows and chunks.
template <class T, class Fn>
void broadcast_apply(const Tensor& a, const Tensor& b, Tensor& out, const Fn& fn) {
  const BroadcastLoop loop = plan_broadcast(a.shape(), b.shape(), out.shape());
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  const size_t outer_rank = loop.dims.size() - 1;
  const int64_t inner = loop.dims.back();
  const int64_t sa = loop.stride_a.back();
  const int64_t sb = loop.stride_b.back();
  const int64_t rows = out.numel() / std::max<int64_t>(inner, 1);
  const int64_t chunks_per_row = (inner + kGrain - 1) / kGrain;
  const int64_t items = rows * chunks_per_row;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1));
  const bool bf16_blocks = std::is_same_v<T, uint16_t> && !mutant_active(MutantId::Bf16Truncation);
  parallel_ranges(items, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t row = item / chunks_per_row;
      const int64_t j0 = (item % chunks_per_row) * kGrain;
      const int64_t j1 = std::min(inner, j0 + kGrain);
      int64_t off_a = 0;
      int64_t off_b = 0;
      int64_t rest = row;
      for (size_t d = outer_rank; d-- > 0;) {
        const int64_t idx = rest % loop.dims[d];
        rest /= loop.dims[d];
        off_a += idx * loop.stride_a[d];
        off_b += idx * loop.stride_b[d];
      }
      T* o = po + row * inner;
      if constexpr (std::is_same_v<T, uint16_t>) {
        if (bf16_blocks) {
          bf16_binary_run(pa + off_a + j0 * sa, sa, pb + off_b + j0 * sb, sb, o + j0, j1 - j0, fn);
          continue;
        }
      }
      for (int64_t j = j0; j < j1; ++j) {
        o[j] = from_compute<T>(fn(to_compute(pa[off_a + j * sa]), to_compute(pb[off_b + j * sb])));
      }
    }
  });
}

template <class C>
C apply_binary(OpKind kind, C x, C y) {
  switch (kind) {
    case OpKind::Add:
      return x + y;
    case OpKind::Sub:
      return x - y;
    case OpKind::Mul:
      return x * y;
    case OpKind::Div:
      if constexpr (std::is_integral_v<C>) {  // floor division, as python's //
        if (y == 0) throw RuntimeError("integer division by zero");
        const C q = x / y;
        return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
      } else {
        return x / y;
      }
    case OpKind::Maximum:
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<C>::quiet_NaN();
      }
      return x > y ? x : y;
    default:
      break;
  }
  throw RuntimeError("not a binary op: " + std::string(op_name(kind)));
}

template <class T>
void binary_typed(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out) {
  using C = decltype(to_compute(T{}));
  switch (kind) {
    case OpKind::Add:
      broadcast_apply<T>(a, b, out, [](C x, C y) { return apply_binary(OpKind::Add, x, y); });
      break;
    case OpKind::Sub:
      broadcast_apply<T>(a, b, out, [](C x, C y) { return apply_binary(OpKind::Sub, x, y); });
      break;
    case OpKind::Mul:
      broadcast_apply<T>(a, b, out, [](C x, C y) { return apply_binary(OpKind::Mul, x, y); });
      break;
    case OpKind::Div:
      broadcast_apply<T>(a, b, out, [](C x, C y) { return apply_binary(OpKind::Div, x, y); });
      break;
    default:
      broadcast_apply<T>(a, b, out, [](C x, C y) { return apply_binary(OpKind::Maximum, x, y); });
      break;
  }
}

// Elements [begin, end) of `x` converted into `out`'s dtype with StableHLO
// convert semantics (core/dtype_convert.h); a bf16 result is rounded by
// store_bf16 from f32, so the bf16_truncation mutant reaches casts too.
void convert_range(const Tensor& x, Tensor& out, int64_t begin, int64_t end) {
  const auto* src = static_cast<const uint8_t*>(x.raw_data()) + static_cast<size_t>(begin) * dtype_size(x.dtype());
  if (out.dtype() != DType::BF16) {
    auto* dst = static_cast<uint8_t*>(out.raw_data()) + static_cast<size_t>(begin) * dtype_size(out.dtype());
    convert_elements(x.dtype(), src, out.dtype(), dst, end - begin);
    return;
  }
  uint16_t* o = out.data<uint16_t>() + begin;
  float block[kBf16Block];
  for (int64_t j0 = 0; j0 < end - begin; j0 += kBf16Block) {
    const int64_t m = std::min(kBf16Block, end - begin - j0);
    convert_elements(x.dtype(), src + static_cast<size_t>(j0) * dtype_size(x.dtype()), DType::F32, block, m);
    for (int64_t j = 0; j < m; ++j) o[j0 + j] = store_bf16(block[j]);
  }
}

}  // namespace

void require_bf16(const Tensor& t, const char* what) {
  if (t.dtype() != DType::BF16) {
    throw RuntimeError(std::string(what) + " must be bf16 on the device, got " + std::string(dtype_name(t.dtype())));
  }
}

void unary(OpKind kind, const Attrs& attrs, const Tensor& x, Tensor& out) {
  if (kind == OpKind::Neg && is_integer(x.dtype()) && x.dtype() != DType::Bool) return integer_neg(x, out);
  require_bf16(x, "operand");
  require_bf16(out, "result");
  switch (kind) {
    case OpKind::Relu:
      map_bf16(x, out, [](float v) { return v > 0.0f ? v : (std::isnan(v) ? v : 0.0f); });
      return;
    case OpKind::Gelu:
      if (attrs.get_string("approximate", "none") == "tanh")
        map_bf16(x, out, gelu_tanh);
      else
        map_bf16(x, out, gelu_erf);
      return;
    case OpKind::Tanh:
      map_bf16(x, out, [](float v) { return std::tanh(v); });
      return;
    case OpKind::Exp:
      map_bf16(x, out, [](float v) { return std::exp(v); });
      return;
    case OpKind::Log:
      map_bf16(x, out, [](float v) { return std::log(v); });
      return;
    case OpKind::Sqrt:
      map_bf16(x, out, [](float v) { return std::sqrt(v); });
      return;
    case OpKind::Rsqrt:
      map_bf16(x, out, [](float v) { return 1.0f / std::sqrt(v); });
      return;
    case OpKind::Neg:
      map_bf16(x, out, [](float v) { return -v; });
      return;
    case OpKind::Sigmoid:
      map_bf16(x, out, sigmoid);
      return;
    case OpKind::Silu:
      map_bf16(x, out, [](float v) { return v * sigmoid(v); });
      return;
    case OpKind::Erf:
      map_bf16(x, out, [](float v) { return std::erf(v); });
      return;
    case OpKind::Sin:
      map_bf16(x, out, [](float v) { return std::sin(v); });
      return;
    case OpKind::Cos:
      map_bf16(x, out, [](float v) { return std::cos(v); });
      return;
    default:
      break;
  }
  throw RuntimeError("not a unary op: " + std::string(op_name(kind)));
}

void binary(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out) { binary(kind, Attrs(), a, b, out); }

void binary(OpKind kind, const Attrs& attrs, const Tensor& a, const Tensor& b, Tensor& out) {
  if (a.dtype() != out.dtype() || b.dtype() != out.dtype()) {
    throw RuntimeError("operand dtypes " + std::string(dtype_name(a.dtype())) + ", " +
                       std::string(dtype_name(b.dtype())) + " do not match result " +
                       std::string(dtype_name(out.dtype())));
  }
  if (is_integer(out.dtype()) && out.dtype() != DType::Bool) {
    integer_arithmetic(kind, attrs.get_string("integer_division", "floor") == "truncate", a, b, out);
    return;
  }
  switch (out.dtype()) {
    case DType::BF16:
      binary_typed<uint16_t>(kind, a, b, out);
      return;
    case DType::Bool:
      binary_typed<uint8_t>(kind, a, b, out);
      return;
    default:
      break;
  }
  throw RuntimeError("binary ops do not support dtype " + std::string(dtype_name(out.dtype())) + " on the device");
}

void cast(const Tensor& x, Tensor& out) {
  if (x.dtype() == out.dtype()) {
    if (x.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
    return;
  }
  parallel_ranges(x.numel(), kGrain, [&](int64_t begin, int64_t end) { convert_range(x, out, begin, end); });
}

void constant(const Attrs& attrs, Tensor& out) {
  if (out.numel() == 0) return;
  Tensor value(DType::F64, {});
  value.data<double>()[0] = attrs.get_float("value");
  Tensor one(out.dtype(), {});
  convert_range(value, one, 0, 1);
  const size_t size = out.nbytes() / static_cast<size_t>(out.numel());
  auto* base = static_cast<uint8_t*>(out.raw_data());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(base + static_cast<size_t>(i) * size, one.raw_data(), size);
}

}  // namespace meshtest::runtime::device_kernels
