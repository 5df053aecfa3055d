// Unary elementwise ops: float operand (neg: also integer), result of the same type.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType same_float_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_float(in[0], "operand");
  return in[0];
}

// neg also negates integers (wrapping: -INT_MIN = INT_MIN), as StableHLO negate.
TensorType neg_type(const std::vector<TensorType>& in, const OpAttrs&) {
  if (in[0].dtype == DType::Bool) fail("operand must be floating point or an integer, got " + type_to_string(in[0]));
  return in[0];
}

OpDef unary(OpKind kind, std::string_view name, std::string_view doc, std::vector<AttrSpec> attrs = {},
            TypeRule infer = same_float_type) {
  return {kind, name, OpFamily::UnaryElementwise, 1, 1, std::move(attrs), infer, doc};
}

}  // namespace

std::vector<OpDef> unary_elementwise_ops() {
  return {
      unary(OpKind::Relu, "relu", "max(x, 0)"),
      unary(OpKind::Gelu, "gelu", "x * Phi(x); approximate=\"tanh\": the tanh approximation",
            {optional_enum("approximate", {"none", "tanh"}, "none")}),
      unary(OpKind::Tanh, "tanh", "tanh(x)"),
      unary(OpKind::Exp, "exp", "e^x"),
      unary(OpKind::Log, "log", "natural logarithm"),
      unary(OpKind::Sqrt, "sqrt", "square root"),
      unary(OpKind::Rsqrt, "rsqrt", "1 / sqrt(x)"),
      unary(OpKind::Neg, "neg", "-x (floats, and integers wrapping: -INT_MIN = INT_MIN)", {}, neg_type),
      unary(OpKind::Sigmoid, "sigmoid", "1 / (1 + e^-x)"),
      unary(OpKind::Silu, "silu", "x * sigmoid(x)"),
      unary(OpKind::Erf, "erf", "the error function"),
      unary(OpKind::Sin, "sin", "sine"),
      unary(OpKind::Cos, "cos", "cosine"),
  };
}

}  // namespace meshtest::ops
