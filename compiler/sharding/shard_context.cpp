// The shard pass's local-graph builder: emitting local ops and collectives,
// and making a whole operand follow a split without moving data.
#include "compiler/sharding/shard_context.h"

#include <algorithm>

namespace meshtest::compiler::sharding {

ShardContext::ShardContext(const Graph& global, const Mesh& mesh, ShardingPlan& plan)
    : global_(global), mesh_(mesh), plan_(plan), map_(global.values.size()), producer_(global.values.size(), -1) {
  plan_.mesh = mesh_;
  for (size_t i = 0; i < global.ops.size(); ++i) producer_[static_cast<size_t>(global.ops[i].output)] = static_cast<int>(i);
}

ValueId ShardContext::emit(OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
  std::vector<TensorType> types;
  for (ValueId v : inputs) types.push_back(out_.type(v));
  Op op{kind, std::move(inputs), kNoValue, std::move(attrs)};
  op.output = out_.add_value(infer_type(kind, types, op.attrs));
  out_.ops.push_back(std::move(op));
  return out_.ops.back().output;
}

ValueId ShardContext::collective(OpKind kind, ValueId v, const std::vector<int>& axes, Attrs attrs) {
  attrs.set("axes", axes_text(mesh_, axes));
  attrs.set("group_size", axes_size(mesh_, axes));
  ++plan_.collectives;
  return emit(kind, {v}, std::move(attrs));
}

Local ShardContext::gather(Local l) {
  for (size_t d = 0; d < l.sharding.dims.size(); ++d) {
    if (l.sharding.dims[d].empty()) continue;
    l.value = collective(OpKind::AllGather, l.value, l.sharding.dims[d], {{"dim", static_cast<int64_t>(d)}});
    l.sharding.dims[d].clear();
  }
  return l;
}

Local ShardContext::all_reduce(ValueId v, const std::vector<int>& axes, Sharding s) {
  return {collective(OpKind::AllReduce, v, axes, {}), std::move(s)};
}

ValueId ShardContext::add_constant_param(const std::string& name, Tensor data) {
  Param p;
  p.name = name;
  p.kind = ParamKind::Weight;
  p.value = out_.add_value({data.dtype(), data.shape()}, name);
  p.data = std::move(data);
  out_.params.push_back(std::move(p));
  return out_.params.back().value;
}

// Whether replicated global value `v` is the same along its dim `d`, so
// every chip can make its own shard of it without communication: a
// constant fill, a dim of extent 1, or an elementwise op of such values
// (autodiff's broadcasts of a scalar to a full shape, ViT's class token
// expanded to the batch).
bool ShardContext::free_along(ValueId v, size_t d, int depth) const {
  if (!map_[static_cast<size_t>(v)].sharding.is_replicated()) return false;
  const Shape& shape = gtype(v).shape;
  if (shape[d] == 1) return true;
  const int i = producer_[static_cast<size_t>(v)];
  if (i < 0 || depth > 8) return false;
  const Op& op = global_.ops[static_cast<size_t>(i)];
  if (op.kind == OpKind::Constant) return true;
  if (!is_binary_elementwise(op.kind) && !is_unary_elementwise(op.kind) && op.kind != OpKind::Cast) return false;
  for (ValueId in : op.inputs) {
    const size_t rank = gtype(in).shape.size();
    if (d + rank >= shape.size() && !free_along(in, d + rank - shape.size(), depth + 1)) return false;
  }
  return true;
}

bool ShardContext::free_along_splits(ValueId v, const Sharding& s) const {
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (!s.dims[d].empty() && !free_along(v, d)) return false;
  }
  return true;
}

Sharding ShardContext::broadcast_split(ValueId v, const Sharding& s) const {
  const Shape& shape = gtype(v).shape;
  Sharding vs = Sharding::replicated(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) vs.dims[d] = s.dims[d + s.dims.size() - shape.size()];
  }
  return vs;
}

// Makes replicated `v` again on every chip directly in split `s` (only
// along dims free_along holds for).
ValueId ShardContext::remake_split(ValueId v, const Sharding& s) {
  if (s.is_replicated()) return map_[static_cast<size_t>(v)].value;
  const Op& op = global_.ops[static_cast<size_t>(producer_[static_cast<size_t>(v)])];
  if (op.kind == OpKind::Constant) {
    Attrs attrs = op.attrs;
    attrs.set("shape", local_shape(mesh_, gtype(v).shape, s));
    return emit(OpKind::Constant, {}, attrs);
  }
  std::vector<ValueId> values;
  for (ValueId in : op.inputs) values.push_back(remake_split(in, broadcast_split(in, s)));
  return emit(op.kind, values, op.attrs);
}

std::optional<ValueId> ShardContext::split_to(ValueId global_value, const Local& l, const Sharding& want) {
  if (l.sharding == want) return l.value;
  if (l.sharding.is_replicated() && free_along_splits(global_value, want)) return remake_split(global_value, want);
  ValueId v = l.value;
  for (size_t d = 0; d < want.dims.size(); ++d) {
    if (l.sharding.dims[d] == want.dims[d]) continue;
    if (!l.sharding.dims[d].empty()) return std::nullopt;
    v = collective(OpKind::ShardSlice, v, want.dims[d], {{"dim", static_cast<int64_t>(d)}});
  }
  return v;
}

std::vector<ValueId> values_of(const std::vector<Local>& in) {
  std::vector<ValueId> values;
  for (const Local& l : in) values.push_back(l.value);
  return values;
}

bool uses_an_axis_twice(const Sharding& s) {
  std::vector<int> all;
  for (const auto& d : s.dims) all.insert(all.end(), d.begin(), d.end());
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) != all.end();
}

}  // namespace meshtest::compiler::sharding
