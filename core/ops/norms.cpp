// Normalization ops: batch_norm (inference statistics given) and layer_norm.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType batch_norm_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_rank(in[0], 4, "batch_norm input");
  for (int i = 1; i < 5; ++i) {
    if (in[static_cast<size_t>(i)].shape != Shape{in[0].shape[1]}) fail("batch_norm parameters must have shape [C]");
  }
  return in[0];
}

TensorType layer_norm_type(const std::vector<TensorType>& in, const OpAttrs&) {
  if (in[0].shape.empty()) fail("layer_norm input must have rank >= 1");
  const Shape d{in[0].shape.back()};
  if (in[1].shape != d || in[2].shape != d) fail("layer_norm gamma/beta must have shape " + shape_to_string(d));
  return in[0];
}

}  // namespace

std::vector<OpDef> norm_ops() {
  return {
      {OpKind::BatchNorm, "batch_norm", OpFamily::Norm, 5, 5, {optional_float("eps", 1e-5)}, batch_norm_type,
       "batch_norm(x, scale[C], bias[C], mean[C], var[C]){eps}: channel dim 1, "
       "y = (x - mean) / sqrt(var + eps) * scale + bias"},
      {OpKind::LayerNorm, "layer_norm", OpFamily::Norm, 3, 3, {optional_float("eps", 1e-5)}, layer_norm_type,
       "layer_norm(x, gamma[D], beta[D]){eps}: over the last dim (biased variance)"},
  };
}

}  // namespace meshtest::ops
