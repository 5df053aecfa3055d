// Composite ops (made by the compiler's `fuse` pass, never by loaders):
// rms_norm and scaled dot-product attention.
#include <algorithm>

#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType rms_norm_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_float(in[0], "rms_norm input");
  require_float(in[1], "rms_norm weight");
  if (in[0].shape.empty() || in[1].shape != Shape{in[0].shape.back()}) {
    fail("rms_norm weight " + type_to_string(in[1]) + " must have shape [" +
         (in[0].shape.empty() ? std::string("D") : std::to_string(in[0].shape.back())) + "]");
  }
  return in[0];
}

TensorType sdpa_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_same_dtype(in, 0, 2);
  require_float(in[0], "sdpa query");
  const TensorType scores = infer_matmul(in[0], in[1]);
  if (in[0].shape.size() != in[1].shape.size() || scores.shape.size() != in[2].shape.size() ||
      !std::equal(in[0].shape.begin(), in[0].shape.end() - 2, in[1].shape.begin()) ||
      !std::equal(in[0].shape.begin(), in[0].shape.end() - 2, in[2].shape.begin())) {
    fail("sdpa query, key and value must share batch dims");
  }
  if (in.size() == 4 && broadcast_shapes(scores.shape, in[3].shape) != scores.shape) {
    fail("sdpa mask " + type_to_string(in[3]) + " does not broadcast to scores " + type_to_string(scores));
  }
  return infer_matmul(scores, in[2]);
}

}  // namespace

std::vector<OpDef> composite_ops() {
  return {
      {OpKind::RmsNorm, "rms_norm", OpFamily::Composite, 2, 2,
       {required_float("eps"), optional_enum("form", {"cast_before_weight", "cast_after_weight"}, "cast_before_weight")},
       rms_norm_type,
       "rms_norm(x[...,D], w[D]){eps, form=\"cast_before_weight\"|\"cast_after_weight\"}: "
       "y = x * rsqrt(mean(x^2 over the last dim) + eps) * w, result dtype of x"},
      {OpKind::Sdpa, "sdpa", OpFamily::Composite, 3, 4, {required_float("scale")}, sdpa_type,
       "sdpa(q[...,S,D], kt[...,D,T], v[...,T,E], mask?){scale}: softmax(q @ kt * scale + mask, last dim) @ v -> "
       "[...,S,E]; q, kt, v share batch dims, mask broadcasts to [...,S,T]"},
  };
}

}  // namespace meshtest::ops
