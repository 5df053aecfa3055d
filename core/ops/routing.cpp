// Routing ops: topk_mask (mixture-of-experts expert selection).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType topk_mask_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  require_float(in[0], "topk_mask input");
  const int64_t axis = normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(in[0].shape.size()));
  const int64_t k = attrs.get_int("k");
  const int64_t extent = in[0].shape[static_cast<size_t>(axis)];
  if (k < 1 || k > extent) {
    fail("topk_mask k=" + std::to_string(k) + " must lie in [1, " + std::to_string(extent) + "] (the size of axis " +
         std::to_string(axis) + ")");
  }
  return in[0];
}

}  // namespace

std::vector<OpDef> routing_ops() {
  return {
      {OpKind::TopkMask, "topk_mask", OpFamily::Routing, 1, 1, {required_int("k"), required_int("axis")},
       topk_mask_type,
       "topk_mask(x){k, axis}: 1 at the k largest values along axis (ties: lower index first), 0 elsewhere; "
       "same type as x"},
  };
}

}  // namespace meshtest::ops
