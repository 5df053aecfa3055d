// Softmax along one axis.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType softmax_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  require_float(in[0], "softmax input");
  normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(in[0].shape.size()));
  return in[0];
}

}  // namespace

std::vector<OpDef> softmax_ops() {
  return {
      {OpKind::Softmax, "softmax", OpFamily::Softmax, 1, 1, {optional_int("axis", -1)}, softmax_type,
       "softmax(x){axis}: exp(x) / sum(exp(x)) along axis"},
  };
}

}  // namespace meshtest::ops
