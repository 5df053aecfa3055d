// Sharding rules of elementwise ops: unary ops and cast keep their operand's
// split, binary ops (and greater) broadcast splits as numpy broadcasts shapes.
#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

// Unary elementwise ops and cast: the result keeps the operand's split.
std::optional<Local> same_split_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string&) {
  return Local{cx.emit(op.kind, {in[0].value}, op.attrs), in[0].sharding};
}

// numpy broadcasting: each output dim takes the split of the operands that
// really have it (extent > 1); two different splits of one dim conflict.
// An operand whole along a dim the others split follows them there
// (split_to: remade when free, else sliced in place).
std::optional<Local> broadcast_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const size_t out_rank = cx.gtype(op.output).shape.size();
  Sharding s = Sharding::replicated(out_rank);
  for (size_t j = 0; j < out_rank; ++j) {
    bool set = false;
    for (size_t k = 0; k < in.size(); ++k) {
      const Shape& shape = cx.gtype(op.inputs[k]).shape;
      if (j + shape.size() < out_rank) continue;
      const size_t d = j + shape.size() - out_rank;
      if (shape[d] == 1 || in[k].sharding.dims[d].empty()) continue;
      if (!join_split(s.dims[j], set, in[k].sharding.dims[d])) {
        why = "operands split differently along dim " + std::to_string(j);
        return std::nullopt;
      }
    }
  }
  if (uses_an_axis_twice(s)) {
    why = "operands split over one mesh axis on different dims";
    return std::nullopt;
  }
  std::vector<ValueId> values;
  for (size_t k = 0; k < in.size(); ++k) {
    const std::optional<ValueId> v = cx.split_to(op.inputs[k], in[k], cx.broadcast_split(op.inputs[k], s));
    if (!v) {
      why = "operand " + std::to_string(k) + " split on a dim the result is not";
      return std::nullopt;
    }
    values.push_back(*v);
  }
  return Local{cx.emit(op.kind, values, op.attrs), s};
}

// A constant fill is made whole on every chip (an operand that needs it split
// remakes it in its shard shape, see ShardContext::split_to).
std::optional<Local> constant_rule(ShardContext& cx, const Op& op, std::vector<Local>&, std::string&) {
  return Local{cx.emit(op.kind, {}, op.attrs), Sharding::replicated(cx.gtype(op.output).shape.size())};
}

}  // namespace meshtest::compiler::sharding
