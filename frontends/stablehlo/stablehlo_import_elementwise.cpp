// Elementwise StableHLO and CHLO ops onto meshtest ops: the one-to-one
// unary and binary maps, compare (and CHLO's is_inf family through it),
// select, clamp, convert, bitcast_convert, reduce_precision, iota,
// constants and chlo.square (x * x). CHLO's broadcast_* ops broadcast as numpy, as meshtest's binary
// ops do.
#include <limits>

#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

// Emits `kind` on the graph values of all operands.
ValueRef map_direct(Importer& im, const Op& op, const std::vector<ValueRef>& operands, OpKind kind,
                    Attrs attrs = {}) {
  return im.result(op, im.emit(op, kind, im.graph_values(operands, op), std::move(attrs)));
}

// StableHLO / CHLO op name -> meshtest op name, for ops without attributes.
const std::vector<std::pair<const char*, OpKind>>& direct_ops() {
  using K = OpKind;
  static const std::vector<std::pair<const char*, OpKind>> kOps = {
      // unary
      {"stablehlo.abs", K::Abs},
      {"stablehlo.sign", K::Sign},
      {"stablehlo.floor", K::Floor},
      {"stablehlo.ceil", K::Ceil},
      {"stablehlo.round_nearest_afz", K::RoundAfz},
      {"stablehlo.round_nearest_even", K::RoundEven},
      {"stablehlo.exponential_minus_one", K::Expm1},
      {"stablehlo.log_plus_one", K::Log1p},
      {"stablehlo.cbrt", K::Cbrt},
      {"stablehlo.tan", K::Tan},
      {"chlo.tan", K::Tan},
      {"stablehlo.not", K::Not},
      {"stablehlo.popcnt", K::Popcnt},
      {"stablehlo.count_leading_zeros", K::Clz},
      {"stablehlo.is_finite", K::IsFinite},
      {"stablehlo.exponential", K::Exp},
      {"stablehlo.log", K::Log},
      {"stablehlo.sqrt", K::Sqrt},
      {"stablehlo.rsqrt", K::Rsqrt},
      {"stablehlo.negate", K::Neg},
      {"stablehlo.tanh", K::Tanh},
      {"stablehlo.logistic", K::Sigmoid},
      {"stablehlo.sine", K::Sin},
      {"stablehlo.cosine", K::Cos},
      {"chlo.erf", K::Erf},
      {"chlo.erfc", K::Erfc},
      {"chlo.erf_inv", K::ErfInv},
      {"chlo.lgamma", K::Lgamma},
      {"chlo.digamma", K::Digamma},
      {"chlo.sinh", K::Sinh},
      {"chlo.cosh", K::Cosh},
      {"chlo.asin", K::Asin},
      {"chlo.acos", K::Acos},
      {"chlo.atan", K::Atan},
      {"chlo.asinh", K::Asinh},
      {"chlo.acosh", K::Acosh},
      {"chlo.atanh", K::Atanh},
      // binary
      {"stablehlo.add", K::Add},
      {"stablehlo.subtract", K::Sub},
      {"stablehlo.multiply", K::Mul},
      {"stablehlo.divide", K::Div},
      {"stablehlo.maximum", K::Maximum},
      {"stablehlo.minimum", K::Minimum},
      {"stablehlo.power", K::Power},
      {"stablehlo.remainder", K::Remainder},
      {"stablehlo.atan2", K::Atan2},
      {"stablehlo.and", K::And},
      {"stablehlo.or", K::Or},
      {"stablehlo.xor", K::Xor},
      {"stablehlo.shift_left", K::ShiftLeft},
      {"stablehlo.shift_right_arithmetic", K::ShiftRightArithmetic},
      {"stablehlo.shift_right_logical", K::ShiftRightLogical},
      {"chlo.next_after", K::NextAfter},
      {"chlo.broadcast_add", K::Add},
      {"chlo.broadcast_subtract", K::Sub},
      {"chlo.broadcast_multiply", K::Mul},
      {"chlo.broadcast_divide", K::Div},
      {"chlo.broadcast_maximum", K::Maximum},
      {"chlo.broadcast_minimum", K::Minimum},
      {"chlo.broadcast_power", K::Power},
      {"chlo.broadcast_remainder", K::Remainder},
      {"chlo.broadcast_atan2", K::Atan2},
      {"chlo.broadcast_and", K::And},
      {"chlo.broadcast_or", K::Or},
      {"chlo.broadcast_xor", K::Xor},
      {"chlo.broadcast_shift_left", K::ShiftLeft},
      {"chlo.broadcast_shift_right_arithmetic", K::ShiftRightArithmetic},
      {"chlo.broadcast_shift_right_logical", K::ShiftRightLogical},
      {"chlo.broadcast_next_after", K::NextAfter},
  };
  return kOps;
}

// StableHLO's arithmetic on i1 is logic (add / maximum: or, multiply /
// minimum: and); meshtest's arithmetic ops take no bool.
OpKind bool_kind(OpKind kind, const std::vector<ValueRef>& operands) {
  if (operands.empty() || operands[0]->type.dtype != DType::Bool) return kind;
  if (kind == OpKind::Add || kind == OpKind::Maximum) return OpKind::Or;
  if (kind == OpKind::Mul || kind == OpKind::Minimum) return OpKind::And;
  return kind;
}

// StableHLO's integer divide truncates toward zero (meshtest's div floors
// unless told).
Attrs division_attrs(OpKind kind, const std::vector<ValueRef>& operands) {
  if (kind != OpKind::Div || operands.empty() || !is_integer(operands[0]->type.dtype)) return {};
  return {{"integer_division", std::string("truncate")}};
}

// CHLO broadcast ops may name explicit broadcast dimensions; only the numpy
// (trailing-aligned) ones are what meshtest's binary ops do.
void require_numpy_broadcast(const Importer& im, const Op& op, const std::vector<ValueRef>& operands) {
  const Attribute* dims = op.attr("broadcast_dimensions");
  if (dims == nullptr || operands.size() != 2) return;
  const std::vector<int64_t> d = attr_ints(im, op, dims, "broadcast_dimensions");
  const size_t lhs = operands[0]->type.shape.size();
  const size_t rhs = operands[1]->type.shape.size();
  const size_t small = std::min(lhs, rhs);
  const size_t big = std::max(lhs, rhs);
  bool numpy = d.size() == small;
  for (size_t i = 0; numpy && i < d.size(); ++i) numpy = d[i] == static_cast<int64_t>(big - small + i);
  if (!numpy) im.unsupported(op, "broadcast_dimensions other than numpy's trailing alignment");
}

ValueRef map_compare(Importer& im, const Op& op, const std::vector<ValueRef>& operands) {
  Attrs attrs{{"direction", enum_attr(op, "comparison_direction")}};
  if (const std::string type = enum_attr(op, "compare_type"); !type.empty()) attrs.set("compare_type", type);
  if (attrs.get_string("direction").empty()) im.unsupported(op, "missing comparison_direction");
  return map_direct(im, op, operands, OpKind::Compare, attrs);
}

// chlo.is_inf / is_pos_inf / is_neg_inf: x (or |x|) compared with an infinity.
ValueRef map_is_inf(Importer& im, const Op& op, const std::vector<ValueRef>& operands, double infinity, bool absolute) {
  const ValueRef& x = operands.at(0);
  Tensor inf = Tensor::scalar_f32(static_cast<float>(infinity)).to(x->type.dtype);
  ValueId lhs = im.graph_value(x, op);
  if (absolute) lhs = im.emit(op, OpKind::Abs, {lhs});
  const ValueId id = im.emit(op, OpKind::Compare, {lhs, im.graph_value(im.known(inf), op)},
                             {{"direction", std::string("EQ")}, {"compare_type", std::string("FLOAT")}});
  return im.result(op, id);
}

ValueRef map_constant(Importer& im, const Op& op) {
  const Attribute* value = op.attr("value");
  if (value == nullptr) im.unsupported(op, "missing value");
  if (value->kind != Attribute::Kind::Dense) im.unsupported(op, "value is not a dense literal: " + value->text);
  return im.known(dense_tensor(im, op, *value, im.result_type(op)));
}

ValueRef map_iota(Importer& im, const Op& op) {
  const TensorType t = im.result_type(op);
  const int64_t dim = int_attr(im, op, "iota_dimension");
  const ValueId id =
      im.emit(op, OpKind::Iota, {}, {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}, {"dimension", dim}});
  ValueRef v = im.result(op, id);
  v->iota_dimension = dim;
  return v;
}

}  // namespace

void add_elementwise_handlers(HandlerTable& table) {
  for (const auto& [stablehlo_name, meshtest_name] : direct_ops()) {
    const OpKind kind = meshtest_name;
    table[stablehlo_name] = [kind](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
      require_numpy_broadcast(im, op, in);
      return std::vector<ValueRef>{map_direct(im, op, in, bool_kind(kind, in), division_attrs(kind, in))};
    };
  }
  table["stablehlo.compare"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_compare(im, op, in)};
  };
  table["chlo.broadcast_compare"] = table["stablehlo.compare"];
  const double inf = std::numeric_limits<double>::infinity();
  table["chlo.is_inf"] = [inf](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_is_inf(im, op, in, inf, true)};
  };
  table["chlo.is_pos_inf"] = [inf](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_is_inf(im, op, in, inf, false)};
  };
  table["chlo.is_neg_inf"] = [inf](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_is_inf(im, op, in, -inf, false)};
  };
  table["chlo.square"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_direct(im, op, {in.at(0), in.at(0)}, bool_kind(OpKind::Mul, in))};
  };
  table["stablehlo.select"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_direct(im, op, in, OpKind::Select)};
  };
  table["chlo.broadcast_select"] = table["stablehlo.select"];
  table["stablehlo.clamp"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_direct(im, op, in, OpKind::Clamp)};
  };
  table["stablehlo.convert"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    const DType to = im.result_type(op).dtype;
    if (in.at(0)->type.dtype == to) return std::vector<ValueRef>{in[0]};
    return std::vector<ValueRef>{map_direct(im, op, in, OpKind::Cast, {{"dtype", std::string(dtype_name(to))}})};
  };
  table["stablehlo.bitcast_convert"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    const TensorType t = im.result_type(op);
    return std::vector<ValueRef>{
        map_direct(im, op, in, OpKind::BitcastConvert, {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}})};
  };
  table["stablehlo.reduce_precision"] = [](Importer& im, const Op& op, const std::vector<ValueRef>& in, Scope&) {
    return std::vector<ValueRef>{map_direct(
        im, op, in, OpKind::ReducePrecision,
        {{"exponent_bits", int_attr(im, op, "exponent_bits")}, {"mantissa_bits", int_attr(im, op, "mantissa_bits")}})};
  };
  table["stablehlo.iota"] = [](Importer& im, const Op& op, const std::vector<ValueRef>&, Scope&) {
    return std::vector<ValueRef>{map_iota(im, op)};
  };
  table["stablehlo.constant"] = [](Importer& im, const Op& op, const std::vector<ValueRef>&, Scope&) {
    return std::vector<ValueRef>{map_constant(im, op)};
  };
}

}  // namespace meshtest::frontends::stablehlo
