// StableHLO elementwise ops (OpKind 53..95): the unary and binary math,
// bitwise, comparison and selection ops of StableHLO, bitcast_convert,
// reduce_precision and iota. Semantics follow the StableHLO spec; operands
// broadcast as numpy (StableHLO itself never broadcasts implicitly).
#include <string>

#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

std::string dtype_list_error(const TensorType& t, const char* what, const char* expected) {
  return std::string(what) + " must be " + expected + ", got " + type_to_string(t);
}

void require_integer_or_bool(const TensorType& t, const char* what) {
  if (!is_integer(t.dtype)) fail(dtype_list_error(t, what, "an integer or bool"));
}

void require_integer(const TensorType& t, const char* what) {
  if (!is_integer(t.dtype) || t.dtype == DType::Bool) fail(dtype_list_error(t, what, "an integer (not bool)"));
}

void require_signed_or_float(const TensorType& t, const char* what) {
  if (!is_floating(t.dtype) && !is_signed_integer(t.dtype)) {
    fail(dtype_list_error(t, what, "a signed integer or floating point"));
  }
}

void require_numeric(const TensorType& t, const char* what) {
  if (t.dtype == DType::Bool) fail(dtype_list_error(t, what, "an integer or floating point (not bool)"));
}

// Operands first..last share a dtype; the result shape broadcasts them all.
TensorType broadcast_all(const std::vector<TensorType>& in, size_t first, DType dtype) {
  require_same_dtype(in, first, in.size() - 1);
  Shape shape = in[first].shape;
  for (size_t i = first + 1; i < in.size(); ++i) shape = broadcast_shapes(shape, in[i].shape);
  return {dtype, shape};
}

TensorType float_unary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_float(in[0], "operand");
  return in[0];
}

TensorType signed_or_float_unary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_signed_or_float(in[0], "operand");
  return in[0];
}

TensorType integer_or_bool_unary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_integer_or_bool(in[0], "operand");
  return in[0];
}

TensorType integer_unary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_integer(in[0], "operand");
  return in[0];
}

TensorType is_finite_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_float(in[0], "operand");
  return {DType::Bool, in[0].shape};
}

TensorType any_binary(const std::vector<TensorType>& in, const OpAttrs&) {
  return broadcast_all(in, 0, in[0].dtype);
}

TensorType numeric_binary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_numeric(in[0], "lhs");
  return broadcast_all(in, 0, in[0].dtype);
}

TensorType float_binary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_float(in[0], "lhs");
  return broadcast_all(in, 0, in[0].dtype);
}

TensorType integer_or_bool_binary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_integer_or_bool(in[0], "lhs");
  return broadcast_all(in, 0, in[0].dtype);
}

TensorType integer_binary(const std::vector<TensorType>& in, const OpAttrs&) {
  require_integer(in[0], "lhs");
  return broadcast_all(in, 0, in[0].dtype);
}

TensorType compare_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType result = broadcast_all(in, 0, DType::Bool);
  const std::string type = attrs.get_string("compare_type");
  const DType d = in[0].dtype;
  const bool ok = type == "NOTYPE" || ((type == "FLOAT" || type == "TOTALORDER") && is_floating(d)) ||
                  (type == "SIGNED" && is_signed_integer(d)) ||
                  (type == "UNSIGNED" && (is_unsigned_integer(d) || d == DType::Bool));
  if (!ok) fail("compare_type " + type + " does not apply to operands of " + type_to_string(in[0]));
  return result;
}

TensorType select_type(const std::vector<TensorType>& in, const OpAttrs&) {
  if (in[0].dtype != DType::Bool) fail("pred must be bool, got " + type_to_string(in[0]));
  const TensorType values = broadcast_all(in, 1, in[1].dtype);
  return {values.dtype, broadcast_shapes(in[0].shape, values.shape)};
}

TensorType clamp_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_numeric(in[1], "operand");
  return broadcast_all(in, 0, in[1].dtype);
}

// StableHLO bitcast_convert: equal widths keep the shape; a narrower result
// appends a dimension of (operand bits / result bits); a wider one drops the
// operand's last dimension, which must be (result bits / operand bits).
TensorType bitcast_convert_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const DType to = dtype_attr(attrs.get_string("dtype"));
  const DType from = in[0].dtype;
  if (from == DType::BFP8_B || to == DType::BFP8_B) fail("bitcast_convert does not apply to bfp8_b");
  if ((from == DType::Bool) != (to == DType::Bool)) {
    fail("bitcast_convert between bool and " + std::string(dtype_name(from == DType::Bool ? to : from)) +
         " is not allowed (bool has no bit width)");
  }
  const int from_bits = dtype_bits(from);
  const int to_bits = dtype_bits(to);
  Shape shape = in[0].shape;
  if (from_bits > to_bits) {
    shape.push_back(from_bits / to_bits);
  } else if (from_bits < to_bits) {
    if (shape.empty() || shape.back() != to_bits / from_bits) {
      fail("bitcast_convert from " + type_to_string(in[0]) + " to " + std::string(dtype_name(to)) +
           " needs a last dimension of " + std::to_string(to_bits / from_bits));
    }
    shape.pop_back();
  }
  const Shape given = attrs.get_ints("shape");
  if (given != shape) {
    fail("attribute 'shape' " + shape_to_string(given) + " does not match the bitcast result shape " +
         shape_to_string(shape));
  }
  return {to, shape};
}

TensorType reduce_precision_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  require_float(in[0], "operand");
  const int64_t exponent_bits = attrs.get_int("exponent_bits");
  const int64_t mantissa_bits = attrs.get_int("mantissa_bits");
  if (exponent_bits < 1 || exponent_bits > 11) {
    fail("exponent_bits must be in [1, 11], got " + std::to_string(exponent_bits));
  }
  if (mantissa_bits < 0 || mantissa_bits > 52) {
    fail("mantissa_bits must be in [0, 52], got " + std::to_string(mantissa_bits));
  }
  return in[0];
}

TensorType iota_type(const std::vector<TensorType>&, const OpAttrs& attrs) {
  const DType dtype = dtype_attr(attrs.get_string("dtype"));
  if (dtype == DType::BFP8_B) fail("iota does not produce bfp8_b");
  const Shape shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) fail("iota shape must not have negative dimensions, got " + shape_to_string(shape));
  }
  checked_numel(shape);
  const int64_t dimension = attrs.get_int("dimension");
  if (dimension < 0 || dimension >= static_cast<int64_t>(shape.size())) {
    fail("iota dimension " + std::to_string(dimension) + " out of range for shape " + shape_to_string(shape));
  }
  return {dtype, shape};
}

OpDef def(OpKind kind, std::string_view name, int inputs, TypeRule infer, std::string_view doc,
          std::vector<AttrSpec> attrs = {}) {
  return {kind, name, OpFamily::StablehloElementwise, inputs, inputs, std::move(attrs), infer, doc};
}

}  // namespace

std::vector<OpDef> stablehlo_elementwise_ops() {
  using K = OpKind;
  return {
      def(K::Abs, "abs", 1, signed_or_float_unary, "|x| (signed int: INT_MIN stays INT_MIN)"),
      def(K::Sign, "sign", 1, signed_or_float_unary, "-1, 0 or 1 by the sign of x (+-0 and NaN kept for floats)"),
      def(K::Floor, "floor", 1, float_unary, "largest integer <= x"),
      def(K::Ceil, "ceil", 1, float_unary, "smallest integer >= x"),
      def(K::RoundAfz, "round_afz", 1, float_unary, "nearest integer, halfway cases away from zero"),
      def(K::RoundEven, "round_even", 1, float_unary, "nearest integer, halfway cases to even"),
      def(K::Expm1, "expm1", 1, float_unary, "e^x - 1"),
      def(K::Log1p, "log1p", 1, float_unary, "log(1 + x)"),
      def(K::Cbrt, "cbrt", 1, float_unary, "cube root"),
      def(K::Tan, "tan", 1, float_unary, "tangent"),
      def(K::Not, "not", 1, integer_or_bool_unary, "bitwise not (logical not for bool)"),
      def(K::Popcnt, "popcnt", 1, integer_unary, "number of set bits"),
      def(K::Clz, "clz", 1, integer_unary, "number of leading zero bits (the bit width for 0)"),
      def(K::IsFinite, "is_finite", 1, is_finite_type, "x is neither inf nor NaN -> bool"),
      def(K::Minimum, "minimum", 2, any_binary,
          "min(a, b) (NaN if either is NaN; bool: and; numpy broadcasting, same dtype)"),
      def(K::Power, "power", 2, numeric_binary,
          "a^b (floats: C pow; ints: exact by squaring with wrap-around; a negative exponent gives "
          "1/a^-b truncated toward zero: 1 for a = 1, +-1 for a = -1, else 0)"),
      def(K::Remainder, "remainder", 2, numeric_binary,
          "a - b * trunc(a / b): sign of a (C fmod; ints: truncated, b = 0 gives a, INT_MIN % -1 = 0)"),
      def(K::Atan2, "atan2", 2, float_binary, "atan2(a, b)"),
      def(K::And, "and", 2, integer_or_bool_binary, "bitwise and (logical for bool)"),
      def(K::Or, "or", 2, integer_or_bool_binary, "bitwise or (logical for bool)"),
      def(K::Xor, "xor", 2, integer_or_bool_binary, "bitwise xor (logical for bool)"),
      def(K::ShiftLeft, "shift_left", 2, integer_binary, "a << b; b >= bit width (or negative) gives 0"),
      def(K::ShiftRightArithmetic, "shift_right_arithmetic", 2, integer_binary,
          "a >> b filling with the sign bit; b >= bit width (or negative) gives all sign bits"),
      def(K::ShiftRightLogical, "shift_right_logical", 2, integer_binary,
          "a >> b filling with zeros; b >= bit width (or negative) gives 0"),
      def(K::Compare, "compare", 2, compare_type,
          "compare(a, b){direction=EQ|NE|LT|LE|GT|GE, compare_type=NOTYPE|FLOAT|TOTALORDER|SIGNED|UNSIGNED} -> "
          "bool (NOTYPE: by the dtype; TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN)",
          {required_enum("direction", {"EQ", "NE", "LT", "LE", "GT", "GE"}),
           optional_enum("compare_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}, "NOTYPE")}),
      def(K::Select, "select", 3, select_type,
          "select(pred, on_true, on_false): on_true where pred else on_false (pred bool; numpy broadcasting)"),
      def(K::Clamp, "clamp", 3, clamp_type,
          "clamp(min, x, max) = min(max(x, min), max) (min/max scalar or broadcastable, same dtype)"),
      def(K::NextAfter, "next_after", 2, float_binary, "the next representable value after a towards b"),
      def(K::Sinh, "sinh", 1, float_unary, "hyperbolic sine"),
      def(K::Cosh, "cosh", 1, float_unary, "hyperbolic cosine"),
      def(K::Asin, "asin", 1, float_unary, "arc sine"),
      def(K::Acos, "acos", 1, float_unary, "arc cosine"),
      def(K::Atan, "atan", 1, float_unary, "arc tangent"),
      def(K::Asinh, "asinh", 1, float_unary, "inverse hyperbolic sine"),
      def(K::Acosh, "acosh", 1, float_unary, "inverse hyperbolic cosine"),
      def(K::Atanh, "atanh", 1, float_unary, "inverse hyperbolic tangent"),
      def(K::Erfc, "erfc", 1, float_unary, "1 - erf(x)"),
      def(K::ErfInv, "erf_inv", 1, float_unary, "inverse error function"),
      def(K::Lgamma, "lgamma", 1, float_unary, "log |gamma(x)|"),
      def(K::Digamma, "digamma", 1, float_unary, "d/dx log gamma(x)"),
      def(K::BitcastConvert, "bitcast_convert", 1, bitcast_convert_type,
          "bitcast_convert(x){dtype, shape}: the bits of x reinterpreted as dtype (a narrower dtype appends a "
          "dimension, a wider one consumes the last; little-endian element order as StableHLO)",
          {required_string("dtype"), required_ints("shape")}),
      def(K::ReducePrecision, "reduce_precision", 1, reduce_precision_type,
          "reduce_precision(x){exponent_bits, mantissa_bits}: x rounded (nearest even) to that format and back "
          "(overflow -> inf, below its smallest normal -> +-0, NaN kept)",
          {required_int("exponent_bits"), required_int("mantissa_bits")}),
      def(K::Iota, "iota", 0, iota_type,
          "iota(){dtype, shape, dimension}: each element is its index along `dimension`",
          {required_string("dtype"), required_ints("shape"), required_int("dimension")}),
  };
}

}  // namespace meshtest::ops
