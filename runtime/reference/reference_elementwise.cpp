// Reference elementwise kernels: unary math in f32, binary ops with numpy
// broadcasting (one strided iterator for all of them), cast and constant.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference {

namespace {

template <class F>
Tensor map_unary(const Tensor& x, F f) {
  Tensor out(DType::F32, x.shape());
  const float* in = x.data<float>();
  float* o = out.data<float>();
  parallel_ranges(x.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
  });
  return out;
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// Applies f over the broadcast of a and b; T is the element type of all three.
template <class T, class F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, F f) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out(a.dtype(), shape);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
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

Tensor binary_f32(OpKind kind, const Tensor& a, const Tensor& b) {
  switch (kind) {
    case OpKind::Add:
      return broadcast_binary<float>(a, b, [](float x, float y) { return x + y; });
    case OpKind::Sub:
      return broadcast_binary<float>(a, b, [](float x, float y) { return x - y; });
    case OpKind::Mul:
      return broadcast_binary<float>(a, b, [](float x, float y) { return x * y; });
    case OpKind::Div:
      return broadcast_binary<float>(a, b, [](float x, float y) { return x / y; });
    case OpKind::Maximum:
      // NaN propagates, as in torch.maximum.
      return broadcast_binary<float>(a, b, [](float x, float y) {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<float>::quiet_NaN();
        return x > y ? x : y;
      });
    default:
      break;
  }
  throw RuntimeError("not a binary op");
}

// Integer arithmetic in the operands' own type; division is floor division
// (python //) and dividing by zero is an error.
template <class T>
Tensor binary_int(OpKind kind, const Tensor& a, const Tensor& b) {
  switch (kind) {
    case OpKind::Add:
      return broadcast_binary<T>(a, b, [](T x, T y) { return static_cast<T>(x + y); });
    case OpKind::Sub:
      return broadcast_binary<T>(a, b, [](T x, T y) { return static_cast<T>(x - y); });
    case OpKind::Mul:
      return broadcast_binary<T>(a, b, [](T x, T y) { return static_cast<T>(x * y); });
    case OpKind::Maximum:
      return broadcast_binary<T>(a, b, [](T x, T y) { return x > y ? x : y; });
    case OpKind::Div: {
      const T* pb = b.data<T>();
      for (int64_t i = 0; i < b.numel(); ++i) {
        if (pb[i] == 0) throw RuntimeError("integer division by zero");
      }
      return broadcast_binary<T>(a, b, [](T x, T y) {
        T q = static_cast<T>(x / y);
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return q;
      });
    }
    default:
      break;
  }
  throw RuntimeError("not a binary op");
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
  require_f32(x, "operand");
  switch (kind) {
    case OpKind::Relu:
      return map_unary(x, [](float v) { return v < 0.0f ? 0.0f : v; });  // keeps NaN
    case OpKind::Gelu: {
      if (attrs.get_string("approximate", "none") == "tanh") {
        return map_unary(x, [](float v) {
          constexpr float kSqrt2OverPi = 0.7978845608028654f;
          return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
        });
      }
      return map_unary(x, [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f)); });
    }
    case OpKind::Tanh:
      return map_unary(x, [](float v) { return std::tanh(v); });
    case OpKind::Exp:
      return map_unary(x, [](float v) { return std::exp(v); });
    case OpKind::Log:
      return map_unary(x, [](float v) { return std::log(v); });
    case OpKind::Sqrt:
      return map_unary(x, [](float v) { return std::sqrt(v); });
    case OpKind::Rsqrt:
      return map_unary(x, [](float v) { return 1.0f / std::sqrt(v); });
    case OpKind::Neg:
      return map_unary(x, [](float v) { return -v; });
    case OpKind::Sigmoid:
      return map_unary(x, [](float v) { return sigmoid(v); });
    case OpKind::Silu:
      return map_unary(x, [](float v) { return v * sigmoid(v); });
    case OpKind::Erf:
      return map_unary(x, [](float v) { return std::erf(v); });
    case OpKind::Sin:
      return map_unary(x, [](float v) { return std::sin(v); });
    case OpKind::Cos:
      return map_unary(x, [](float v) { return std::cos(v); });
    default:
      break;
  }
  throw RuntimeError("not a unary op");
}

Tensor binary(OpKind kind, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    throw RuntimeError("operand dtypes differ: " + std::string(dtype_name(a.dtype())) + " vs " +
                       std::string(dtype_name(b.dtype())));
  }
  switch (a.dtype()) {
    case DType::F32:
      return binary_f32(kind, a, b);
    case DType::I32:
      return binary_int<int32_t>(kind, a, b);
    case DType::I64:
      return binary_int<int64_t>(kind, a, b);
    default:
      break;
  }
  throw RuntimeError("operands of dtype " + std::string(dtype_name(a.dtype())) + " are not supported");
}

Tensor cast(const Tensor& x, DType target) { return x.to(is_floating(target) ? DType::F32 : target); }

Tensor constant(const Attrs& attrs) {
  const double value = attrs.get_float("value");
  const DType dtype = parse_dtype(attrs.get_string("dtype", "f32"));
  const Shape shape = attrs.get_ints("shape", {});
  if (is_floating(dtype)) {
    Tensor out(DType::F32, shape);
    float* p = out.data<float>();
    std::fill(p, p + out.numel(), static_cast<float>(value));
    return out;
  }
  Tensor out(dtype, shape);
  switch (dtype) {
    case DType::I32:
      std::fill(out.data<int32_t>(), out.data<int32_t>() + out.numel(), static_cast<int32_t>(value));
      break;
    case DType::I64:
      std::fill(out.data<int64_t>(), out.data<int64_t>() + out.numel(), static_cast<int64_t>(value));
      break;
    default:
      std::fill(out.data<uint8_t>(), out.data<uint8_t>() + out.numel(), value != 0.0 ? 1 : 0);
      break;
  }
  return out;
}

}  // namespace meshtest::runtime::reference
