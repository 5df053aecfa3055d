// Reference gradients of the elementwise ops (derivatives evaluated in
// double), of binary ops with numpy broadcasting (gradients summed back over
// broadcast dims), of reductions and of the data-movement ops.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "runtime/reference/reference_backward_kernels.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference::grad {

namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluTanhCubic = 0.044715;

// out[shape] = f({v_0, ..., v_K-1}) where operand j broadcasts to `shape`;
// the values are read as double and the result rounded to f32 once.
template <size_t K, class F>
Tensor broadcast_map(const Shape& shape, const std::array<const Tensor*, K>& operands, F f) {
  Tensor out(DType::F32, shape);
  if (out.numel() == 0) return out;
  std::array<std::vector<int64_t>, K> strides;
  std::array<const float*, K> data;
  for (size_t j = 0; j < K; ++j) {
    require_f32(*operands[j], "gradient operand");
    strides[j] = broadcast_strides(operands[j]->shape(), shape);
    data[j] = operands[j]->template data<float>();
  }
  float* po = out.data<float>();
  const StridedPlan<K> plan = make_strided_plan<K>(shape, strides);
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, K>& off, int64_t len, const std::array<int64_t, K>& step) {
        std::array<double, K> v;
        for (int64_t i = 0; i < len; ++i) {
          for (size_t j = 0; j < K; ++j) v[j] = data[j][off[j] + i * step[j]];
          po[pos + i] = static_cast<float>(f(v));
        }
      });
  return out;
}

// d y / d x of a unary op at x (y = f(x) given too, where it is cheaper).
double unary_derivative(OpKind kind, double x, double y, bool gelu_tanh) {
  switch (kind) {
    case OpKind::Relu:
      return x > 0.0 ? 1.0 : 0.0;
    case OpKind::Gelu:
      if (gelu_tanh) {
        const double t = std::tanh(kSqrt2OverPi * (x + kGeluTanhCubic * x * x * x));
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3.0 * kGeluTanhCubic * x * x);
      }
      return 0.5 * (1.0 + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
    case OpKind::Tanh:
      return 1.0 - y * y;
    case OpKind::Exp:
      return y;
    case OpKind::Log:
      return 1.0 / x;
    case OpKind::Sqrt:
      return 0.5 / y;
    case OpKind::Rsqrt:
      return -0.5 * y * y * y;
    case OpKind::Neg:
      return -1.0;
    case OpKind::Sigmoid:
      return y * (1.0 - y);
    case OpKind::Silu: {
      const double s = 1.0 / (1.0 + std::exp(-x));
      return s * (1.0 + x * (1.0 - s));
    }
    case OpKind::Erf:
      return kTwoOverSqrtPi * std::exp(-x * x);
    case OpKind::Sin:
      return std::cos(x);
    case OpKind::Cos:
      return -std::sin(x);
    default:
      break;
  }
  throw RuntimeError("no reference gradient for unary op " + std::string(op_name(kind)));
}

// The reduced dims of a reduction over `x_shape`, as a keepdim shape, and the
// number of elements folded into each output.
struct ReducedDims {
  Shape keep_shape;
  std::vector<int64_t> axes;
  int64_t count = 1;
};

ReducedDims reduced_dims(const Shape& x_shape, const Attrs& attrs) {
  ReducedDims r;
  r.keep_shape = x_shape;
  const auto rank = static_cast<int64_t>(x_shape.size());
  for (int64_t a : attrs.get_ints("axes")) {
    const int64_t n = normalize_axis(a, rank);
    r.axes.push_back(n);
    r.count *= x_shape[static_cast<size_t>(n)];
    r.keep_shape[static_cast<size_t>(n)] = 1;
  }
  return r;
}

Attrs sum_attrs(std::vector<int64_t> axes, bool keepdim) {
  return {{"axes", std::move(axes)}, {"keepdim", int64_t{keepdim ? 1 : 0}}};
}

}  // namespace

Tensor sum_to_shape(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  if (shape.size() > t.shape().size()) {
    throw RuntimeError("cannot sum " + shape_to_string(t.shape()) + " down to " + shape_to_string(shape));
  }
  const size_t lead = t.shape().size() - shape.size();
  std::vector<int64_t> axes;
  for (size_t d = 0; d < t.shape().size(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && t.shape()[d] != 1)) axes.push_back(static_cast<int64_t>(d));
  }
  return reduce(OpKind::ReduceSum, t, sum_attrs(std::move(axes), false)).reshaped(shape);
}

Tensor expand_to(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  return copy_strided(t, shape, broadcast_strides(t.shape(), shape), 0);
}

Tensor unary_backward(OpKind kind, const Tensor& x, const Tensor& y, const Tensor& dy, const Attrs& attrs) {
  const bool gelu_tanh = kind == OpKind::Gelu && attrs.get_string("approximate", "none") == "tanh";
  unary_derivative(kind, 0.0, 0.0, gelu_tanh);  // an op without a rule fails before any work
  return broadcast_map<3>(x.shape(), {&x, &y, &dy}, [kind, gelu_tanh](const std::array<double, 3>& v) {
    return v[2] * unary_derivative(kind, v[0], v[1], gelu_tanh);
  });
}

Grads binary_backward(OpKind kind, const Tensor& a, const Tensor& b, const Tensor& dy, const Wanted& want) {
  const Shape& shape = dy.shape();
  // Gradient of operand `which` over the full broadcast shape, then summed back.
  auto grad = [&](size_t which) -> Tensor {
    const bool first = which == 0;
    const Tensor& self = first ? a : b;
    Tensor full;
    switch (kind) {
      case OpKind::Add:
        full = dy;
        break;
      case OpKind::Sub:
        full = first ? dy : broadcast_map<1>(shape, {&dy}, [](const std::array<double, 1>& v) { return -v[0]; });
        break;
      case OpKind::Mul:
        full =
            broadcast_map<2>(shape, {&dy, first ? &b : &a}, [](const std::array<double, 2>& v) { return v[0] * v[1]; });
        break;
      case OpKind::Div:
        full = broadcast_map<3>(shape, {&dy, &a, &b}, [first](const std::array<double, 3>& v) {
          return first ? v[0] / v[2] : -v[0] * v[1] / (v[2] * v[2]);
        });
        break;
      case OpKind::Maximum:
        // Ties go to the first operand (the convention compiler/autodiff.h documents too).
        full = broadcast_map<3>(shape, {&dy, &a, &b}, [first](const std::array<double, 3>& v) {
          return (v[1] >= v[2]) == first ? v[0] : 0.0;
        });
        break;
      default:
        throw RuntimeError("no reference gradient for binary op " + std::string(op_name(kind)));
    }
    return sum_to_shape(full, self.shape());
  };
  Grads out(2);
  for (size_t i = 0; i < 2; ++i) {
    if (want[i]) out[i] = grad(i);
  }
  return out;
}

Tensor reduce_backward(OpKind kind, const Tensor& x, const Tensor& y, const Tensor& dy, const Attrs& attrs) {
  const ReducedDims r = reduced_dims(x.shape(), attrs);
  const Tensor dyk = dy.reshaped(r.keep_shape);
  switch (kind) {
    case OpKind::ReduceSum:
      return expand_to(dyk, x.shape());
    case OpKind::ReduceMean: {
      const double inv = 1.0 / static_cast<double>(r.count);
      return broadcast_map<1>(x.shape(), {&dyk}, [inv](const std::array<double, 1>& v) { return v[0] * inv; });
    }
    case OpKind::ReduceMax: {
      // Every element equal to the maximum shares the gradient evenly (torch.amax).
      const Tensor yk = y.reshaped(r.keep_shape);
      const Tensor is_max = broadcast_map<2>(x.shape(), {&x, &yk},
                                             [](const std::array<double, 2>& v) { return v[0] == v[1] ? 1.0 : 0.0; });
      const Tensor ties = reduce(OpKind::ReduceSum, is_max, sum_attrs(r.axes, true));
      return broadcast_map<3>(x.shape(), {&is_max, &dyk, &ties},
                              [](const std::array<double, 3>& v) { return v[0] != 0.0 ? v[1] / v[2] : 0.0; });
    }
    default:
      break;
  }
  throw RuntimeError("no reference gradient for " + std::string(op_name(kind)));
}

Tensor transpose_backward(const Tensor& dy, const Attrs& attrs) {
  const std::vector<int64_t>& perm = attrs.get_ints("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t p = normalize_axis(perm[i], static_cast<int64_t>(perm.size()));
    inverse[static_cast<size_t>(p)] = static_cast<int64_t>(i);
  }
  return transpose(dy, {{"perm", inverse}});
}

Tensor slice_backward(const Shape& x_shape, const Tensor& dy, const Attrs& attrs) {
  Tensor dx(DType::F32, x_shape);  // zero outside the slice
  if (dy.numel() == 0) return dx;
  const auto rank = static_cast<int64_t>(x_shape.size());
  const auto axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), rank));
  const int64_t dim = x_shape[axis];
  const int64_t step = attrs.get_int("step", 1);
  const int64_t raw_start = attrs.get_int("start", 0);  // python semantics, as the forward kernel
  const int64_t start = std::clamp<int64_t>(raw_start < 0 ? raw_start + dim : raw_start, 0, dim);
  std::vector<int64_t> strides = shape_strides(x_shape);
  const int64_t base = start * strides[axis];
  strides[axis] *= step;
  // Walk dy in order; operand 0 is dx's element for each dy element.
  const StridedPlan<1> plan = make_strided_plan<1>(dy.shape(), {strides}, {base});
  const float* src = dy.data<float>();
  float* dst = dx.data<float>();
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, 1>& off, int64_t len, const std::array<int64_t, 1>& s) {
        for (int64_t i = 0; i < len; ++i) dst[off[0] + i * s[0]] = src[pos + i];
      });
  return dx;
}

Grads concat_backward(const std::vector<Tensor>& xs, const Tensor& dy, const Attrs& attrs, const Wanted& want) {
  const int64_t axis = normalize_axis(attrs.get_int("axis"), dy.rank());
  Grads out(xs.size());
  int64_t start = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t end = start + xs[i].dim(axis);
    if (want[i]) out[i] = slice(dy, {{"axis", axis}, {"start", start}, {"end", end}, {"step", int64_t{1}}});
    start = end;
  }
  return out;
}

}  // namespace meshtest::runtime::reference::grad
