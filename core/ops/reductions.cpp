// Reductions over a list of axes: sum, mean, max.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType reduce_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  const auto axes = attrs.get_ints("axes");
  const bool keepdim = attrs.get_int("keepdim") != 0;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, rank);
    if (reduced[static_cast<size_t>(n)]) fail("axis " + std::to_string(a) + " listed twice");
    reduced[static_cast<size_t>(n)] = true;
  }
  Shape out;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!reduced[i]) out.push_back(x.shape[i]);
    else if (keepdim) out.push_back(1);
  }
  return {x.dtype, out};
}

OpDef reduction(OpKind kind, std::string_view name, std::string_view doc) {
  return {kind, name, OpFamily::Reduction, 1, 1, {required_ints("axes"), optional_int("keepdim", 0)}, reduce_type, doc};
}

}  // namespace

std::vector<OpDef> reduction_ops() {
  return {
      reduction(OpKind::ReduceSum, "reduce_sum", "reduce_sum(x){axes=[...], keepdim=0|1}: sum over axes"),
      reduction(OpKind::ReduceMean, "reduce_mean", "reduce_mean(x){axes=[...], keepdim=0|1}: mean over axes"),
      reduction(OpKind::ReduceMax, "reduce_max", "reduce_max(x){axes=[...], keepdim=0|1}: maximum over axes"),
  };
}

}  // namespace meshtest::ops
