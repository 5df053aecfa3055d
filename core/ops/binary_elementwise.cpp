// Binary elementwise ops: numpy broadcasting, operands of one dtype.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType broadcast_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_same_dtype(in, 0, 1);
  return {in[0].dtype, broadcast_shapes(in[0].shape, in[1].shape)};
}

OpDef binary(OpKind kind, std::string_view name, std::string_view doc, std::vector<AttrSpec> attrs = {}) {
  return {kind, name, OpFamily::BinaryElementwise, 2, 2, std::move(attrs), broadcast_type, doc};
}

}  // namespace

std::vector<OpDef> binary_elementwise_ops() {
  return {
      binary(OpKind::Add, "add", "a + b (numpy broadcasting, same dtype)"),
      binary(OpKind::Sub, "sub", "a - b (numpy broadcasting, same dtype)"),
      binary(OpKind::Mul, "mul", "a * b (numpy broadcasting, same dtype)"),
      binary(OpKind::Div, "div",
             "a / b (numpy broadcasting, same dtype); integers: integer_division=\"floor\" rounds down (python //, "
             "a zero divisor is an error), \"truncate\" toward zero as StableHLO divide (x / 0 = -1, "
             "INT_MIN / -1 = INT_MIN)",
             {optional_enum("integer_division", {"floor", "truncate"}, "floor")}),
      binary(OpKind::Maximum, "maximum", "max(a, b) (numpy broadcasting, same dtype)"),
  };
}

}  // namespace meshtest::ops
