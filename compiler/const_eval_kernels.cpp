// Host f32 kernels for const-eval: small, clear loops (weights only, once per compile).
#include "compiler/const_eval_kernels.h"

#include <cmath>

#include "core/error.h"

namespace meshtest::compiler {

namespace {

float unary_value(OpKind kind, float x) {
  switch (kind) {
    case OpKind::Relu:
      return x > 0 ? x : 0.0f;
    case OpKind::Tanh:
      return std::tanh(x);
    case OpKind::Exp:
      return std::exp(x);
    case OpKind::Log:
      return std::log(x);
    case OpKind::Sqrt:
      return std::sqrt(x);
    case OpKind::Rsqrt:
      return 1.0f / std::sqrt(x);
    case OpKind::Neg:
      return -x;
    case OpKind::Sigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case OpKind::Silu:
      return x / (1.0f + std::exp(-x));
    case OpKind::Erf:
      return std::erf(x);
    case OpKind::Sin:
      return std::sin(x);
    case OpKind::Cos:
      return std::cos(x);
    default:
      throw CompileError("const-eval has no host kernel for " + std::string(op_name(kind)));
  }
}

float binary_value(OpKind kind, float a, float b) {
  switch (kind) {
    case OpKind::Add:
      return a + b;
    case OpKind::Sub:
      return a - b;
    case OpKind::Mul:
      return a * b;
    case OpKind::Div:
      return a / b;
    case OpKind::Maximum:
      return std::fmax(a, b);
    default:
      throw CompileError("const-eval has no host kernel for " + std::string(op_name(kind)));
  }
}

// Strides of `shape` aligned to `out` (rank-extended), 0 along broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const std::vector<int64_t> own = shape_strides(shape);
  const size_t offset = out.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) strides[offset + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

// Visits every output index in row-major order, passing the operands' offsets.
template <class Fn>
void for_each_index(const Shape& out, const std::vector<std::vector<int64_t>>& strides, Fn fn) {
  const int64_t n = shape_numel(out);
  std::vector<int64_t> index(out.size(), 0);
  std::vector<int64_t> offsets(strides.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, offsets);
    for (size_t d = out.size(); d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] += strides[k][d];
      if (index[d] < out[d]) break;
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] -= strides[k][d] * out[d];
      index[d] = 0;
    }
  }
}

}  // namespace

bool host_foldable(OpKind kind) {
  return (is_unary_elementwise(kind) && kind != OpKind::Gelu) || is_binary_elementwise(kind) || kind == OpKind::Cast ||
         kind == OpKind::Reshape || kind == OpKind::Transpose;
}

Tensor host_constant(const Attrs& attrs, const Shape& shape) {
  Tensor t(DType::F32, shape);
  float* o = t.data<float>();
  const auto value = static_cast<float>(attrs.get_float("value"));
  for (int64_t i = 0; i < t.numel(); ++i) o[i] = value;
  return t;
}

Tensor host_eval(OpKind kind, const Attrs& attrs, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  Tensor out(DType::F32, out_shape);
  float* o = out.data<float>();
  const float* a = in[0]->data<float>();
  if (is_unary_elementwise(kind)) {
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = unary_value(kind, a[i]);
  } else if (is_binary_elementwise(kind)) {
    const float* b = in[1]->data<float>();
    for_each_index(
        out_shape, {broadcast_strides(in[0]->shape(), out_shape), broadcast_strides(in[1]->shape(), out_shape)},
        [&](int64_t i, const std::vector<int64_t>& off) { o[i] = binary_value(kind, a[off[0]], b[off[1]]); });
  } else if (kind == OpKind::Transpose) {
    const auto perm = attrs.get_ints("perm");
    const std::vector<int64_t> src = shape_strides(in[0]->shape());
    std::vector<int64_t> strides(perm.size());
    for (size_t d = 0; d < perm.size(); ++d)
      strides[d] = src[static_cast<size_t>(normalize_axis(perm[d], static_cast<int64_t>(perm.size())))];
    for_each_index(out_shape, {strides}, [&](int64_t i, const std::vector<int64_t>& off) { o[i] = a[off[0]]; });
  } else if (kind == OpKind::Cast || kind == OpKind::Reshape) {
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = a[i];
  } else {
    throw CompileError("const-eval has no host kernel for " + std::string(op_name(kind)));
  }
  return out;
}

}  // namespace meshtest::compiler
