// StableHLO emitters of the elementwise ops: unary and binary math (numpy
// broadcasting made explicit with broadcast_in_dim), relu / silu / gelu as
// their formulas, compare / select / clamp, cast (convert), constant
// (a splat), bitcast_convert, reduce_precision and iota.
#include <map>

#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

// Ops that are one StableHLO (or CHLO) op of the same name family.
struct Direct {
  std::string_view name;
  bool chlo = false;
};

const std::map<OpKind, Direct>& direct_unary_ops() {
  static const std::map<OpKind, Direct> ops = {
      {K::Tanh, {"tanh"}},
      {K::Exp, {"exponential"}},
      {K::Log, {"log"}},
      {K::Sqrt, {"sqrt"}},
      {K::Rsqrt, {"rsqrt"}},
      {K::Neg, {"negate"}},
      {K::Sigmoid, {"logistic"}},
      {K::Erf, {"erf", true}},
      {K::Sin, {"sine"}},
      {K::Cos, {"cosine"}},
      {K::Abs, {"abs"}},
      {K::Sign, {"sign"}},
      {K::Floor, {"floor"}},
      {K::Ceil, {"ceil"}},
      {K::RoundAfz, {"round_nearest_afz"}},
      {K::RoundEven, {"round_nearest_even"}},
      {K::Expm1, {"exponential_minus_one"}},
      {K::Log1p, {"log_plus_one"}},
      {K::Cbrt, {"cbrt"}},
      {K::Tan, {"tan", true}},
      {K::Not, {"not"}},
      {K::Popcnt, {"popcnt"}},
      {K::Clz, {"count_leading_zeros"}},
      {K::Sinh, {"sinh", true}},
      {K::Cosh, {"cosh", true}},
      {K::Asin, {"asin", true}},
      {K::Acos, {"acos", true}},
      {K::Atan, {"atan", true}},
      {K::Asinh, {"asinh", true}},
      {K::Acosh, {"acosh", true}},
      {K::Atanh, {"atanh", true}},
      {K::Erfc, {"erfc", true}},
      {K::ErfInv, {"erf_inv", true}},
      {K::Lgamma, {"lgamma", true}},
      {K::Digamma, {"digamma", true}},
  };
  return ops;
}

const std::map<OpKind, Direct>& direct_binary_ops() {
  static const std::map<OpKind, Direct> ops = {
      {K::Add, {"add"}},
      {K::Sub, {"subtract"}},
      {K::Mul, {"multiply"}},
      {K::Div, {"divide"}},
      {K::Maximum, {"maximum"}},
      {K::Minimum, {"minimum"}},
      {K::Power, {"power"}},
      {K::Remainder, {"remainder"}},
      {K::Atan2, {"atan2"}},
      {K::And, {"and"}},
      {K::Or, {"or"}},
      {K::Xor, {"xor"}},
      {K::ShiftLeft, {"shift_left"}},
      {K::ShiftRightArithmetic, {"shift_right_arithmetic"}},
      {K::ShiftRightLogical, {"shift_right_logical"}},
      {K::NextAfter, {"next_after", true}},
  };
  return ops;
}

// The operands numpy-broadcast to `shape`, in operand order (so the text
// does not depend on the order a compiler evaluates arguments in).
std::vector<Val> broadcast_operands(EmitContext& c, const Shape& shape) {
  std::vector<Val> out;
  for (const Val& v : c.in) out.push_back(c.fn.broadcast_to(v, shape));
  return out;
}

Val emit_direct_unary(EmitContext& c) {
  const Direct& d = direct_unary_ops().at(c.op.kind);
  return d.chlo ? c.fn.chlo_unary(d.name, c.in[0]) : c.fn.unary(d.name, c.in[0]);
}

Val emit_direct_binary(EmitContext& c) {
  const Direct& d = direct_binary_ops().at(c.op.kind);
  const std::vector<Val> v = broadcast_operands(c, c.out.shape);
  return d.chlo ? c.fn.chlo_binary(d.name, v[0], v[1]) : c.fn.binary(d.name, v[0], v[1]);
}

Val emit_is_finite(EmitContext& c) {
  const Val& x = c.in[0];
  return c.fn.emit("stablehlo.is_finite " + x.ssa + " : (" + tensor_type(x.type) + ") -> " + tensor_type(c.out), c.out);
}

// relu: max(x, 0); stablehlo.maximum keeps NaN as the reference does.
// relu: select(x < 0, 0, x), its own definition: it keeps -0 and NaN, where
// maximum(x, 0) would make -0 into +0.
Val emit_relu(EmitContext& c) {
  const Val zero = c.fn.splat(0.0, c.in[0].type);
  return c.fn.select(c.fn.compare("LT", c.in[0], zero), zero, c.in[0]);
}

// silu: x * logistic(x).
Val emit_silu(EmitContext& c) { return c.fn.binary("multiply", c.in[0], c.fn.unary("logistic", c.in[0])); }

// gelu, in the reference's order of operations:
//   none: (0.5 * x) * (1 + erf(x * 1/sqrt(2)))
//   tanh: (0.5 * x) * (1 + tanh(sqrt(2/pi) * (x + ((0.044715 * x) * x) * x)))
Val gelu_decomposition(FunctionBuilder& fn, const Val& x, bool tanh_form) {
  Val inner;
  if (tanh_form) {
    const Val cube = fn.binary("multiply", fn.binary("multiply", fn.with_scalar("multiply", x, 0.044715), x), x);
    const Val sqrt_2_over_pi = fn.splat(0.7978845608028654, x.type);
    inner = fn.unary("tanh", fn.binary("multiply", sqrt_2_over_pi, fn.binary("add", x, cube)));
  } else {
    inner = fn.chlo_unary("erf", fn.with_scalar("multiply", x, 0.7071067811865476));
  }
  const Val half_x = fn.binary("multiply", fn.splat(0.5, x.type), x);
  return fn.binary("multiply", half_x, fn.binary("add", fn.splat(1.0, x.type), inner));
}

Val emit_gelu(EmitContext& c) {
  const bool tanh_form = c.get_string("approximate") == "tanh";
  return emit_fused(c, tanh_form ? "tenstorrent.gelu_tanh" : "tenstorrent.gelu",
                    tanh_form ? "approximate = \"tanh\"" : "", {c.in[0]}, c.out,
                    [tanh_form](FunctionBuilder& fn, const std::vector<Val>& args) {
                      return gelu_decomposition(fn, args[0], tanh_form);
                    });
}

// greater: 1 where a > b else 0, in the operands' float dtype.
Val emit_greater(EmitContext& c) {
  const std::vector<Val> v = broadcast_operands(c, c.out.shape);
  return c.fn.convert(c.fn.compare("GT", v[0], v[1]), c.out.dtype);
}

Val emit_compare(EmitContext& c) {
  const Shape shape = broadcast_shapes(c.in[0].type.shape, c.in[1].type.shape);
  const std::string type = c.get_string("compare_type");
  const std::vector<Val> v = broadcast_operands(c, shape);
  return c.fn.compare(c.get_string("direction"), v[0], v[1], type == "NOTYPE" ? "" : type);
}

Val emit_select(EmitContext& c) {
  const std::vector<Val> v = broadcast_operands(c, c.out.shape);
  return c.fn.select(v[0], v[1], v[2]);
}

Val emit_clamp(EmitContext& c) {
  const std::vector<Val> v = broadcast_operands(c, c.out.shape);  // min, x, max
  return c.fn.emit("stablehlo.clamp " + v[0].ssa + ", " + v[1].ssa + ", " + v[2].ssa + " : " + tensor_type(c.out),
                   c.out);
}

// cast: StableHLO convert (a cast to bfp8_b is written as f32: no StableHLO type holds it).
Val emit_cast(EmitContext& c) { return c.fn.convert(c.in[0], c.out.dtype); }

Val emit_constant(EmitContext& c) { return c.fn.splat(c.get_float("value"), c.out); }

Val emit_bitcast_convert(EmitContext& c) {
  const Val& x = c.in[0];
  return c.fn.emit("stablehlo.bitcast_convert " + x.ssa + " : (" + tensor_type(x.type) + ") -> " + tensor_type(c.out),
                   c.out);
}

Val emit_reduce_precision(EmitContext& c) {
  const Val& x = c.in[0];
  return c.fn.emit("stablehlo.reduce_precision " + x.ssa + ", format = e" + std::to_string(c.get_int("exponent_bits")) +
                       "m" + std::to_string(c.get_int("mantissa_bits")) + " : " + tensor_type(x.type),
                   c.out);
}

Val emit_iota(EmitContext& c) { return c.fn.iota(c.out, c.get_int("dimension")); }

}  // namespace

void add_elementwise_emitters(OpTable<Emitter>& table) {
  for (const auto& [kind, direct] : direct_unary_ops()) table.set(kind, emit_direct_unary);
  for (const auto& [kind, direct] : direct_binary_ops()) table.set(kind, emit_direct_binary);
  table.set(K::IsFinite, emit_is_finite)
      .set(K::Relu, emit_relu)
      .set(K::Silu, emit_silu)
      .set(K::Gelu, emit_gelu)
      .set(K::Greater, emit_greater)
      .set(K::Compare, emit_compare)
      .set(K::Select, emit_select)
      .set(K::Clamp, emit_clamp)
      .set(K::Cast, emit_cast)
      .set(K::Constant, emit_constant)
      .set(K::BitcastConvert, emit_bitcast_convert)
      .set(K::ReducePrecision, emit_reduce_precision)
      .set(K::Iota, emit_iota);
}

}  // namespace meshtest::frontends::stablehlo
