// Collective ops (made by the compiler's shard pass; only a mesh runs them):
// x is one chip's shard, the group is `group_size` chips along mesh `axes`
// (see the conventions in core/ops.h).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

// The group size of a collective, after checking its mesh axes.
int64_t group_size(const OpAttrs& attrs) {
  if (attrs.get_string("axes").empty()) fail("collective needs mesh 'axes'");
  const int64_t group = attrs.get_int("group_size");
  if (group <= 0) fail("group_size must be positive, got " + std::to_string(group));
  return group;
}

size_t dim_of(const Shape& shape, const OpAttrs& attrs, const char* name) {
  return static_cast<size_t>(normalize_axis(attrs.get_int(name), static_cast<int64_t>(shape.size())));
}

// The extent of dim `name` split evenly over the group.
void divide(Shape& shape, const OpAttrs& attrs, const char* name, int64_t group) {
  const size_t d = dim_of(shape, attrs, name);
  if (shape[d] % group != 0) {
    fail(std::string(name) + " extent " + std::to_string(shape[d]) + " does not split into " + std::to_string(group));
  }
  shape[d] /= group;
}

void multiply(Shape& shape, const OpAttrs& attrs, const char* name, int64_t group) {
  const size_t d = dim_of(shape, attrs, name);
  shape[d] = checked_mul(shape[d], group);
}

TensorType all_gather_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  TensorType t = in[0];
  multiply(t.shape, attrs, "dim", group_size(attrs));
  return t;
}

// reduce_scatter and shard_slice: each member keeps one block of `dim`.
TensorType scatter_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  TensorType t = in[0];
  divide(t.shape, attrs, "dim", group_size(attrs));
  return t;
}

TensorType all_reduce_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  group_size(attrs);
  return in[0];
}

TensorType all_to_all_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const int64_t group = group_size(attrs);
  TensorType t = in[0];
  divide(t.shape, attrs, "split_dim", group);
  multiply(t.shape, attrs, "concat_dim", group);
  return t;
}

OpDef collective(OpKind kind, std::string_view name, std::vector<std::string_view> dims, TypeRule infer,
                 std::string_view doc) {
  std::vector<AttrSpec> attrs = {required_string("axes"), required_int("group_size")};
  for (std::string_view d : dims) attrs.push_back(required_int(d));
  return {kind, name, OpFamily::Collective, 1, 1, std::move(attrs), infer, doc};
}

}  // namespace

std::vector<OpDef> collective_ops() {
  return {
      collective(OpKind::AllGather, "all_gather", {"dim"}, all_gather_type,
                 "all_gather(x){axes, group_size, dim}: group's shards concatenated on dim"),
      collective(OpKind::ReduceScatter, "reduce_scatter", {"dim"}, scatter_type,
                 "reduce_scatter(x){axes, group_size, dim}: group's sum, block r of dim to member r"),
      collective(OpKind::AllReduce, "all_reduce", {}, all_reduce_type,
                 "all_reduce(x){axes, group_size}: group's elementwise sum, on every member"),
      collective(OpKind::AllToAll, "all_to_all", {"split_dim", "concat_dim"}, all_to_all_type,
                 "all_to_all(x){axes, group_size, split_dim, concat_dim}: block r of split_dim goes to member r; "
                 "received blocks concatenated on concat_dim in member order"),
      collective(OpKind::ShardSlice, "shard_slice", {"dim"}, scatter_type,
                 "shard_slice(x){axes, group_size, dim}: member r keeps block r of its own (replicated) x along "
                 "dim; no data moves between chips"),
  };
}

}  // namespace meshtest::ops
