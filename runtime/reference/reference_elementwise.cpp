// Reference elementwise kernels: unary math in f32 (f64 in f64; neg also on
// integers), binary ops with numpy broadcasting (one strided iterator for all
// of them; integers wrap), cast and constant in every dtype.
#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype_dispatch.h"
#include "core/elementwise_scalar.h"
#include "core/error.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference {

namespace {

// out[i] = f(x[i]) in the operand's own type T (float for f32, double for f64).
template <class T, class F>
Tensor map_unary(const Tensor& x, F f) {
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  const T* in = static_cast<const T*>(x.raw_data());
  T* o = static_cast<T*>(out.raw_data());
  parallel_ranges(x.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
  });
  return out;
}

template <class T>
T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

// Applies f over the broadcast of a and b; T is the element type of all three.
template <class T, class F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, F f) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = Tensor::uninitialized(a.dtype(), shape);  // every element written
  const T* pa = static_cast<const T*>(a.raw_data());
  const T* pb = static_cast<const T*>(b.raw_data());
  T* po = static_cast<T*>(out.raw_data());
  const auto plan =
      make_strided_plan<2>(shape, {broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)});
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, 2>& off, int64_t len, const std::array<int64_t, 2>& step) {
        T* o = po + pos;
        const T* x = pa + off[0];
        const T* y = pb + off[1];
        // The common cases as separate loops so the compiler vectorizes them.
        if (step[0] == 1 && step[1] == 1) {
          for (int64_t i = 0; i < len; ++i) o[i] = f(x[i], y[i]);
        } else if (step[0] == 1 && step[1] == 0) {
          const T yv = *y;
          for (int64_t i = 0; i < len; ++i) o[i] = f(x[i], yv);
        } else if (step[0] == 0 && step[1] == 1) {
          const T xv = *x;
          for (int64_t i = 0; i < len; ++i) o[i] = f(xv, y[i]);
        } else {
          for (int64_t i = 0; i < len; ++i) o[i] = f(x[i * step[0]], y[i * step[1]]);
        }
      });
  return out;
}

// Float arithmetic in the operands' own type (float: f32 and every float
// dtype held as f32; double: f64).
template <class T>
Tensor binary_float(OpKind kind, const Tensor& a, const Tensor& b) {
  switch (kind) {
    case OpKind::Add:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x + y; });
    case OpKind::Sub:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x - y; });
    case OpKind::Mul:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x * y; });
    case OpKind::Div:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x / y; });
    case OpKind::Maximum:
      // NaN propagates, as in torch.maximum; -0 < +0 (IEEE maximum).
      return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::float_max(x, y); });
    default:
      break;
  }
  throw RuntimeError("not a binary op");
}

// Integer arithmetic in the operands' own type, wrapping. Division floors
// (python //; dividing by zero is an error) unless the op's
// integer_division is "truncate" (StableHLO: toward zero, x / 0 = -1).
template <class T>
Tensor binary_int(OpKind kind, const Tensor& a, const Tensor& b, bool truncating_division) {
  switch (kind) {
    case OpKind::Add:
      return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::wrap_add(x, y); });
    case OpKind::Sub:
      return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::wrap_sub(x, y); });
    case OpKind::Mul:
      return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::wrap_mul(x, y); });
    case OpKind::Maximum:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x > y ? x : y; });
    case OpKind::Div: {
      if (truncating_division) return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::div_truncate(x, y); });
      const T* pb = static_cast<const T*>(b.raw_data());
      for (int64_t i = 0; i < b.numel(); ++i) {
        if (pb[i] == 0) throw RuntimeError("integer division by zero");
      }
      return broadcast_binary<T>(a, b, [](T x, T y) { return scalar::div_floor(x, y); });
    }
    default:
      break;
  }
  throw RuntimeError("not a binary op");
}

template <class T>
Tensor unary_float(OpKind kind, const Tensor& x, const Attrs& attrs) {
  switch (kind) {
    case OpKind::Relu:
      return map_unary<T>(x, [](T v) { return v < T(0) ? T(0) : v; });  // keeps NaN
    case OpKind::Gelu: {
      if (attrs.get_string("approximate", "none") == "tanh") {
        return map_unary<T>(x, [](T v) {
          constexpr T kSqrt2OverPi = T(0.7978845608028654);
          return T(0.5) * v * (T(1) + std::tanh(kSqrt2OverPi * (v + T(0.044715) * v * v * v)));
        });
      }
      return map_unary<T>(x, [](T v) { return T(0.5) * v * (T(1) + std::erf(v * T(0.7071067811865476))); });
    }
    case OpKind::Tanh:
      return map_unary<T>(x, [](T v) { return std::tanh(v); });
    case OpKind::Exp:
      return map_unary<T>(x, [](T v) { return std::exp(v); });
    case OpKind::Log:
      return map_unary<T>(x, [](T v) { return std::log(v); });
    case OpKind::Sqrt:
      return map_unary<T>(x, [](T v) { return std::sqrt(v); });
    case OpKind::Rsqrt:
      return map_unary<T>(x, [](T v) { return T(1) / std::sqrt(v); });
    case OpKind::Neg:
      return map_unary<T>(x, [](T v) { return -v; });
    case OpKind::Sigmoid:
      return map_unary<T>(x, [](T v) { return sigmoid(v); });
    case OpKind::Silu:
      return map_unary<T>(x, [](T v) { return v * sigmoid(v); });
    case OpKind::Erf:
      return map_unary<T>(x, [](T v) { return std::erf(v); });
    case OpKind::Sin:
      return map_unary<T>(x, [](T v) { return std::sin(v); });
    case OpKind::Cos:
      return map_unary<T>(x, [](T v) { return std::cos(v); });
    default:
      break;
  }
  throw RuntimeError("not a unary op");
}

}  // namespace

std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const std::vector<int64_t> own = shape_strides(shape);
  const size_t lead = out.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) strides[lead + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

Tensor unary(OpKind kind, const Tensor& x, const Attrs& attrs) {
  if (x.dtype() == DType::F64) return unary_float<double>(kind, x, attrs);
  if (kind == OpKind::Neg && is_integer(x.dtype()) && x.dtype() != DType::Bool) {
    return visit_integer_dtype(x.dtype(), "neg", [&](auto tag) {
      using S = typename decltype(tag)::storage;
      return map_unary<S>(x, [](S v) { return scalar::wrap_neg(v); });
    });
  }
  require_f32(x, "operand");
  return unary_float<float>(kind, x, attrs);
}

Tensor binary(OpKind kind, const Tensor& a, const Tensor& b) { return binary(kind, a, b, Attrs()); }

Tensor binary(OpKind kind, const Tensor& a, const Tensor& b, const Attrs& attrs) {
  if (a.dtype() != b.dtype()) {
    throw RuntimeError("operand dtypes differ: " + std::string(dtype_name(a.dtype())) + " vs " +
                       std::string(dtype_name(b.dtype())));
  }
  if (a.dtype() == DType::F32) return binary_float<float>(kind, a, b);
  if (a.dtype() == DType::F64) return binary_float<double>(kind, a, b);
  if (!is_integer(a.dtype()) || a.dtype() == DType::Bool) {
    throw RuntimeError("operands of dtype " + std::string(dtype_name(a.dtype())) + " are not supported");
  }
  const bool truncating = attrs.get_string("integer_division", "floor") == "truncate";
  return visit_integer_dtype(a.dtype(), "binary op", [&](auto tag) {
    using S = typename decltype(tag)::storage;
    return binary_int<S>(kind, a, b, truncating);
  });
}

Tensor cast(const Tensor& x, DType target) {
  // f16 values are rounded here, once from the source (f64 -> f16 directly).
  if (target == DType::F16) return x.to(DType::F16).to(DType::F32);
  return x.to(held_dtype(target));
}

Tensor constant(const Attrs& attrs) {
  const DType dtype = parse_dtype(attrs.get_string("dtype", "f32"));
  const Shape shape = attrs.get_ints("shape", {});
  Tensor value(DType::F64, {});
  value.data<double>()[0] = attrs.get_float("value");
  const Tensor one = cast(value, dtype);
  Tensor out(one.dtype(), shape);
  const size_t size = element_bytes(one.dtype());
  auto* base = static_cast<uint8_t*>(out.raw_data());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(base + static_cast<size_t>(i) * size, one.raw_data(), size);
  return out;
}

}  // namespace meshtest::runtime::reference
