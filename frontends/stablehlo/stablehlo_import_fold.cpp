// Constant folding of the small integer / bool scalar computations that
// decide control flow (loop counters, trip counts, branch indices): when
// every operand of one of these ops is a known one-element integer or bool
// tensor, the importer computes the result instead of emitting an op.
// Arithmetic wraps at the result type's width, as StableHLO's does.
#include <cstring>

#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

bool is_int_scalar(const Tensor& t) { return is_integer(t.dtype()) && t.numel() == 1; }

// The element of a one-element integer tensor, sign-extended when signed.
int64_t scalar_value(const Tensor& t) {
  const size_t size = dtype_size(t.dtype());
  uint64_t bits = 0;
  std::memcpy(&bits, t.raw_data(), size);
  if (is_signed_integer(t.dtype()) && size < 8) {
    const int shift = static_cast<int>(64 - 8 * size);
    return static_cast<int64_t>(bits << shift) >> shift;
  }
  return static_cast<int64_t>(bits);
}

Tensor make_scalar(DType dtype, const Shape& shape, uint64_t bits) {
  Tensor t(dtype, shape);
  if (dtype == DType::Bool) bits = bits != 0 ? 1 : 0;
  std::memcpy(t.raw_data(), &bits, dtype_size(dtype));
  return t;
}

bool compare(const std::string& direction, int64_t a, int64_t b, bool is_unsigned) {
  const auto ua = static_cast<uint64_t>(a);
  const auto ub = static_cast<uint64_t>(b);
  if (direction == "EQ") return a == b;
  if (direction == "NE") return a != b;
  if (direction == "LT") return is_unsigned ? ua < ub : a < b;
  if (direction == "LE") return is_unsigned ? ua <= ub : a <= b;
  if (direction == "GT") return is_unsigned ? ua > ub : a > b;
  return is_unsigned ? ua >= ub : a >= b;  // GE
}

std::optional<uint64_t> fold_binary(const std::string& name, int64_t a, int64_t b, bool is_unsigned) {
  const auto ua = static_cast<uint64_t>(a);
  const auto ub = static_cast<uint64_t>(b);
  if (name == "stablehlo.add") return ua + ub;
  if (name == "stablehlo.subtract") return ua - ub;
  if (name == "stablehlo.multiply") return ua * ub;
  if (name == "stablehlo.and") return ua & ub;
  if (name == "stablehlo.or") return ua | ub;
  if (name == "stablehlo.xor") return ua ^ ub;
  if (name == "stablehlo.maximum") return is_unsigned ? std::max(ua, ub) : static_cast<uint64_t>(std::max(a, b));
  if (name == "stablehlo.minimum") return is_unsigned ? std::min(ua, ub) : static_cast<uint64_t>(std::min(a, b));
  if (b == 0 || (!is_unsigned && b == -1)) return std::nullopt;  // division by zero / overflow: leave to the executor
  if (name == "stablehlo.divide") return is_unsigned ? ua / ub : static_cast<uint64_t>(a / b);
  if (name == "stablehlo.remainder") return is_unsigned ? ua % ub : static_cast<uint64_t>(a % b);
  return std::nullopt;
}

}  // namespace

std::optional<Tensor> fold_scalar_op(const Op& op, const std::vector<ValueRef>& operands, DType result_dtype) {
  if (!is_integer(result_dtype) || op.result_types.size() != 1) return std::nullopt;
  const Shape& shape = op.result_types[0].dims;
  if (shape_numel(shape) != 1) return std::nullopt;
  for (const ValueRef& v : operands) {
    if (!v->constant || !is_int_scalar(*v->constant)) return std::nullopt;
  }
  const Tensor& x = *operands[0]->constant;
  const int64_t a = scalar_value(x);
  const bool is_unsigned = !is_signed_integer(x.dtype());
  const std::string& name = op.name;
  if (name == "stablehlo.convert" || name == "stablehlo.reshape" || name == "stablehlo.broadcast_in_dim") {
    if (name == "stablehlo.convert" && result_dtype == DType::Bool) return make_scalar(result_dtype, shape, a != 0);
    return make_scalar(result_dtype, shape, static_cast<uint64_t>(a));
  }
  if (name == "stablehlo.negate") return make_scalar(result_dtype, shape, 0 - static_cast<uint64_t>(a));
  if (name == "stablehlo.not") {
    return make_scalar(result_dtype, shape, x.dtype() == DType::Bool ? (a == 0) : ~static_cast<uint64_t>(a));
  }
  if (name == "stablehlo.select" && operands.size() == 3) {
    return make_scalar(result_dtype, shape, static_cast<uint64_t>(scalar_value(*operands[a != 0 ? 1 : 2]->constant)));
  }
  if (operands.size() != 2) return std::nullopt;
  const int64_t b = scalar_value(*operands[1]->constant);
  if (name == "stablehlo.compare") {
    const Attribute* dir = op.attr("comparison_direction");
    if (dir == nullptr) return std::nullopt;
    return make_scalar(result_dtype, shape, compare(dir->text, a, b, is_unsigned));
  }
  if (const std::optional<uint64_t> r = fold_binary(name, a, b, is_unsigned))
    return make_scalar(result_dtype, shape, *r);
  return std::nullopt;
}

}  // namespace meshtest::frontends::stablehlo
