// Host f32 kernels for const-eval: small, clear loops (weights only, once per
// compile), in a table keyed by op; an op not in it is not folded. The
// transpose kernel holds the const_eval_transpose_perm_inverted mutant.
#include "compiler/const_eval_kernels.h"

#include <cmath>

#include "core/error.h"
#include "core/mutation.h"

namespace meshtest::compiler {

namespace {

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

// An elementwise op from its scalar function.
template <float (*F)(float)>
Tensor unary_kernel(const Attrs&, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  Tensor out(DType::F32, out_shape);
  float* o = out.data<float>();
  const float* a = in[0]->data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = F(a[i]);
  return out;
}

template <float (*F)(float, float)>
Tensor binary_kernel(const Attrs&, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  Tensor out(DType::F32, out_shape);
  float* o = out.data<float>();
  const float* a = in[0]->data<float>();
  const float* b = in[1]->data<float>();
  for_each_index(out_shape, {broadcast_strides(in[0]->shape(), out_shape), broadcast_strides(in[1]->shape(), out_shape)},
                 [&](int64_t i, const std::vector<int64_t>& off) { o[i] = F(a[off[0]], b[off[1]]); });
  return out;
}

Tensor transpose_kernel(const Attrs& attrs, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  Tensor out(DType::F32, out_shape);
  float* o = out.data<float>();
  const float* a = in[0]->data<float>();
  const auto rank = static_cast<int64_t>(in[0]->shape().size());
  std::vector<int64_t> perm;
  for (int64_t p : attrs.get_ints("perm")) perm.push_back(normalize_axis(p, rank));
  if (mutant_active(MutantId::ConstEvalTransposePermInverted)) {  // the inverse permutation, same element count
    std::vector<int64_t> inverse(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) inverse[static_cast<size_t>(perm[d])] = static_cast<int64_t>(d);
    perm = inverse;
  }
  const std::vector<int64_t> src = shape_strides(in[0]->shape());
  std::vector<int64_t> strides(perm.size());
  Shape walked(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    strides[d] = src[static_cast<size_t>(perm[d])];
    walked[d] = in[0]->shape()[static_cast<size_t>(perm[d])];
  }
  for_each_index(walked, {strides}, [&](int64_t i, const std::vector<int64_t>& off) { o[i] = a[off[0]]; });
  return out;
}

// cast (the host holds every float dtype in f32) and reshape: the elements as they are.
Tensor copy_kernel(const Attrs&, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  Tensor out(DType::F32, out_shape);
  float* o = out.data<float>();
  const float* a = in[0]->data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = a[i];
  return out;
}

float relu(float x) { return x > 0 ? x : 0.0f; }
float tanh_(float x) { return std::tanh(x); }
float exp_(float x) { return std::exp(x); }
float log_(float x) { return std::log(x); }
float sqrt_(float x) { return std::sqrt(x); }
float rsqrt(float x) { return 1.0f / std::sqrt(x); }
float neg(float x) { return -x; }
float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float silu(float x) { return x / (1.0f + std::exp(-x)); }
float erf_(float x) { return std::erf(x); }
float sin_(float x) { return std::sin(x); }
float cos_(float x) { return std::cos(x); }
float add(float a, float b) { return a + b; }
float sub(float a, float b) { return a - b; }
float mul(float a, float b) { return a * b; }
float div(float a, float b) { return a / b; }
float maximum(float a, float b) { return std::fmax(a, b); }

OpTable<HostKernel> build() {
  using K = OpKind;
  OpTable<HostKernel> t("const-eval kernel");
  t.set(K::Relu, unary_kernel<relu>);
  t.set(K::Tanh, unary_kernel<tanh_>);
  t.set(K::Exp, unary_kernel<exp_>);
  t.set(K::Log, unary_kernel<log_>);
  t.set(K::Sqrt, unary_kernel<sqrt_>);
  t.set(K::Rsqrt, unary_kernel<rsqrt>);
  t.set(K::Neg, unary_kernel<neg>);
  t.set(K::Sigmoid, unary_kernel<sigmoid>);
  t.set(K::Silu, unary_kernel<silu>);
  t.set(K::Erf, unary_kernel<erf_>);
  t.set(K::Sin, unary_kernel<sin_>);
  t.set(K::Cos, unary_kernel<cos_>);
  t.set(K::Add, binary_kernel<add>);
  t.set(K::Sub, binary_kernel<sub>);
  t.set(K::Mul, binary_kernel<mul>);
  t.set(K::Div, binary_kernel<div>);
  t.set(K::Maximum, binary_kernel<maximum>);
  t.set(K::Transpose, transpose_kernel);
  t.set({K::Cast, K::Reshape}, copy_kernel);
  t.none({K::Gelu}, "no host kernel: a gelu of weights is left for the device to compute");
  t.none(stablehlo_primitive_ops(),
         "StableHLO primitive: const-eval's host kernels are f32-only; left for the device to compute");
  return t;
}

}  // namespace

const OpTable<HostKernel>& host_kernels() {
  static const OpTable<HostKernel> table = build();
  return table;
}

bool host_foldable(OpKind kind) { return host_kernels().find(kind) != nullptr; }

Tensor host_constant(const Attrs& attrs, const Shape& shape) {
  Tensor t(DType::F32, shape);
  float* o = t.data<float>();
  const auto value = static_cast<float>(attrs.get_float("value"));
  for (int64_t i = 0; i < t.numel(); ++i) o[i] = value;
  return t;
}

Tensor host_eval(OpKind kind, const Attrs& attrs, const std::vector<const Tensor*>& in, const Shape& out_shape) {
  const HostKernel* kernel = host_kernels().find(kind);
  if (kernel == nullptr) throw CompileError("const-eval has no host kernel for " + std::string(op_name(kind)));
  return (*kernel)(attrs, in, out_shape);
}

}  // namespace meshtest::compiler
