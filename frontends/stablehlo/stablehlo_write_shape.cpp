// StableHLO emitters of the shape ops (reshape, transpose, concatenate,
// strided slice), the reductions (reduce with add / maximum; mean divides
// by the reduced count; keepdim reshapes) and the embedding lookups (gather).
#include <algorithm>
#include <cmath>
#include <limits>

#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

Val emit_reshape(EmitContext& c) { return c.fn.reshape(c.in[0], c.out.shape); }

Val emit_transpose(EmitContext& c) {
  const int64_t rank = static_cast<int64_t>(c.out.shape.size());
  std::vector<int64_t> perm;
  for (int64_t p : c.get_ints("perm")) perm.push_back(normalize_axis(p, rank));
  return c.fn.transpose(c.in[0], perm);
}

Val emit_concat(EmitContext& c) {
  return c.fn.concatenate(c.in, normalize_axis(c.get_int("axis"), static_cast<int64_t>(c.out.shape.size())));
}

// slice: python's start/end (negative from the end, clamped) and step on one axis.
Val emit_slice(EmitContext& c) {
  const Shape& shape = c.in[0].type.shape;
  const int64_t axis = normalize_axis(c.get_int("axis"), static_cast<int64_t>(shape.size()));
  const int64_t dim = shape[static_cast<size_t>(axis)];
  auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
  const int64_t start = clamp(c.get_int("start"));
  const int64_t end = clamp(c.op.attrs.has("end") ? c.op.attrs.get_int("end") : dim);
  std::vector<int64_t> starts(shape.size(), 0), limits = shape, strides(shape.size(), 1);
  starts[static_cast<size_t>(axis)] = start;
  limits[static_cast<size_t>(axis)] = std::max(start, end);
  strides[static_cast<size_t>(axis)] = c.get_int("step");
  return c.fn.slice(c.in[0], starts, limits, strides);
}

Val emit_reduction(EmitContext& c) {
  const Val& x = c.in[0];
  const int64_t rank = static_cast<int64_t>(x.type.shape.size());
  std::vector<int64_t> axes;
  int64_t count = 1;
  for (int64_t a : c.get_ints("axes")) {
    axes.push_back(normalize_axis(a, rank));
    count *= x.type.shape[static_cast<size_t>(axes.back())];
  }
  Val r = c.op.kind == K::ReduceMax ? c.fn.reduce(x, axes, "maximum", lowest_value(x.type.dtype))
                                    : c.fn.reduce(x, axes, "add", 0.0);
  if (c.op.kind == K::ReduceMean) r = c.fn.with_scalar("divide", r, static_cast<double>(count));
  return c.fn.reshape(r, c.out.shape);  // keepdim: the reduced dims come back as 1s
}

// table[ids]: a gather of one row per id (ids' own rank is the index vector dim).
Val gather_rows(FunctionBuilder& fn, const Val& table, const Val& ids, const TensorType& out) {
  const int64_t r = static_cast<int64_t>(ids.type.shape.size());
  const std::string dims =
      "dimension_numbers = #stablehlo.gather<offset_dims = [" + std::to_string(r) +
      "], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = " + std::to_string(r) +
      ">, slice_sizes = " + i64_array({1, table.type.shape[1]});
  return fn.generic("gather", {table, ids}, dims, {}, out);
}

// embedding: StableHLO's gather clamps an out-of-range id to the table
// (meshtest's reference reports it as an error instead). With composites:
// `meshtest.embedding`, which a reader takes back as the op itself.
Val emit_embedding(EmitContext& c) {
  return emit_fused(c, "meshtest.embedding", "", c.in, c.out, [&c](FunctionBuilder& fn, const std::vector<Val>& a) {
    return gather_rows(fn, a[1], a[0], c.out);
  });
}

// embedding_shard: local = ids - start; rows of ids outside [0, Vs) are zero.
Val emit_embedding_shard(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const Val ids = fn.convert(c.in[0], DType::I64);
  const Shape& shape = ids.type.shape;
  const int64_t rows = c.in[1].type.shape[0];
  const Val start = fn.broadcast_in_dim(fn.reshape(c.in[2], {}), shape, {});
  const Val local = fn.binary("subtract", ids, start);
  const Val not_below = fn.compare("GE", local, fn.splat(0.0, local.type));
  const Val below_end = fn.compare("LT", local, fn.splat(static_cast<double>(rows), local.type));
  const Val in_range = fn.binary("and", not_below, below_end);
  const Val index = fn.select(in_range, local, fn.splat(0.0, local.type));
  const Val found = gather_rows(fn, c.in[1], index, c.out);
  Shape row_dims(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) row_dims[d] = static_cast<int64_t>(d);
  const Val keep = fn.broadcast_in_dim(in_range, c.out.shape, row_dims);
  return fn.select(keep, found, fn.splat(0.0, c.out));
}

}  // namespace

void add_shape_emitters(OpTable<Emitter>& table) {
  table.set(K::Reshape, emit_reshape)
      .set(K::Transpose, emit_transpose)
      .set(K::Concat, emit_concat)
      .set(K::Slice, emit_slice)
      .set({K::ReduceSum, K::ReduceMean, K::ReduceMax}, emit_reduction)
      .set(K::Embedding, emit_embedding)
      .set(K::EmbeddingShard, emit_embedding_shard);
}

}  // namespace meshtest::frontends::stablehlo
