// Conversion ops: cast (value conversion) and constant (a filled tensor).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType infer_cast(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  return {dtype_attr(attrs.get_string("dtype")), in[0].shape};
}

TensorType infer_constant(const std::vector<TensorType>&, const OpAttrs& attrs) {
  const auto shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) fail("constant shape must not have negative dimensions, got " + shape_to_string(shape));
  }
  return {dtype_attr(attrs.get_string("dtype")), shape};
}

}  // namespace

std::vector<OpDef> conversion_ops() {
  return {
      {OpKind::Cast, "cast", OpFamily::Conversion, 1, 1, {required_string("dtype")}, infer_cast,
       "cast(x){dtype}: value conversion to dtype"},
      {OpKind::Constant, "constant", OpFamily::Conversion, 0, 0,
       {required_float("value"), optional_string("dtype", "f32"), optional_ints("shape", {})}, infer_constant,
       "constant(){value, dtype, shape}: tensor filled with `value`"},
  };
}

}  // namespace meshtest::ops
