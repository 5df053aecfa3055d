// Sharding rules of data movement: reshape and transpose move splits with
// their dims, concat and slice keep them off the dim they work along.
#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

// Groups of consecutive non-1 dims with equal products; a split may sit on
// the leading dim of a group and moves to the leading dim of its image.
std::optional<Local> reshape_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Local& x = in[0];
  const Shape& is = cx.gtype(op.inputs[0]).shape;
  const Shape& os = cx.gtype(op.output).shape;
  Sharding s = Sharding::replicated(os.size());
  std::vector<size_t> id, od;
  for (size_t d = 0; d < is.size(); ++d) {
    if (is[d] != 1) id.push_back(d);
  }
  for (size_t d = 0; d < os.size(); ++d) {
    if (os[d] != 1) od.push_back(d);
  }
  size_t i = 0, o = 0;
  while (i < id.size() && o < od.size()) {
    const size_t i0 = i, o0 = o;
    int64_t pi = is[id[i++]], po = os[od[o++]];
    while (pi != po) {
      if (pi < po && i < id.size()) pi *= is[id[i++]];
      else if (po < pi && o < od.size()) po *= os[od[o++]];
      else break;
    }
    for (size_t k = i0 + 1; k < i; ++k) {
      if (!x.sharding.dims[id[k]].empty()) {
        why = "reshape merges a split dim into a more major one";
        return std::nullopt;
      }
    }
    const auto& axes = x.sharding.dims[id[i0]];
    if (axes.empty()) continue;
    if (os[od[o0]] % axes_size(cx.mesh(), axes) != 0) {
      why = "reshape leaves no dim the split divides";
      return std::nullopt;
    }
    s.dims[od[o0]] = axes;
  }
  Attrs attrs = op.attrs;
  attrs.set("shape", local_shape(cx.mesh(), os, s));
  return Local{cx.emit(op.kind, {x.value}, attrs), s};
}

// transpose moves each split with its dim.
std::optional<Local> transpose_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string&) {
  Sharding s = Sharding::replicated(cx.gtype(op.output).shape.size());
  const auto perm = op.attrs.get_ints("perm");
  for (size_t j = 0; j < perm.size(); ++j) s.dims[j] = in[0].sharding.dims[static_cast<size_t>(perm[j])];
  return Local{cx.emit(op.kind, {in[0].value}, op.attrs), s};
}

// Operands split alike, not along the concat dim; one whole where the others
// are split follows them (split_to).
std::optional<Local> concat_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const size_t axis = static_cast<size_t>(normalize_axis(op.attrs.get_int("axis"), static_cast<int64_t>(in[0].sharding.dims.size())));
  Sharding s = in[0].sharding;
  for (const Local& l : in) {
    if (!l.sharding.is_replicated()) {
      s = l.sharding;
      break;
    }
  }
  std::vector<ValueId> values;
  for (size_t k = 0; k < in.size(); ++k) {
    const std::optional<ValueId> v = s.dims[axis].empty() ? cx.split_to(op.inputs[k], in[k], s) : std::nullopt;
    if (!v) {
      why = "concat of operands split differently or along the concat dim";
      return std::nullopt;
    }
    values.push_back(*v);
  }
  return Local{cx.emit(op.kind, values, op.attrs), s};
}

// Ops along one `axis` (softmax, topk_mask, slice): that dim must be whole;
// the result keeps the operand's split.
std::optional<Local> whole_axis_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Local& x = in[0];
  const int64_t rank = static_cast<int64_t>(x.sharding.dims.size());
  if (!x.sharding.dims[static_cast<size_t>(normalize_axis(op.attrs.get_int("axis"), rank))].empty()) {
    why = std::string(op_name(op.kind)) + " along a split dim";
    return std::nullopt;
  }
  return Local{cx.emit(op.kind, {x.value}, op.attrs), x.sharding};
}

// slice_backward keeps dy's split on every dim but the sliced one.
std::optional<Local> slice_backward_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Local& dy = in[0];
  const int64_t rank = static_cast<int64_t>(dy.sharding.dims.size());
  if (!dy.sharding.dims[static_cast<size_t>(normalize_axis(op.attrs.get_int("axis"), rank))].empty()) {
    why = "slice_backward along a split dim";
    return std::nullopt;
  }
  Attrs attrs = op.attrs;
  attrs.set("input_shape", local_shape(cx.mesh(), op.attrs.get_ints("input_shape"), dy.sharding));
  return Local{cx.emit(op.kind, {dy.value}, attrs), dy.sharding};
}

}  // namespace meshtest::compiler::sharding
