// StableHLO emitters of the collectives the shard pass makes. A graph that
// holds them is one chip's program, run by every chip of WriteOptions::mesh
// on its own data: written as jax.pmap writes such a program, one replica
// per chip (mhlo.num_replicas = chips, stablehlo_writer.cpp), so the
// collectives are cross-replica ones over replica_groups of chip ids
// (XLA's SPMD partitioner, which num_partitions > 1 brings, would partition
// the program again and rejects partition_id): all_gather, reduce_scatter,
// all_reduce (add), all_to_all, and shard_slice as a dynamic_slice at the
// chip's rank, looked up from stablehlo.replica_id.
#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

int64_t dim_attr(const EmitContext& c, const char* name) {
  return normalize_axis(c.get_int(name), static_cast<int64_t>(c.in[0].type.shape.size()));
}

// The replica_groups of the op's group (the property every collective has).
std::string group_properties(const EmitContext& c) {
  return "replica_groups = " + i64_matrix(replica_groups(c, c.get_string("axes")));
}

Val emit_all_gather(EmitContext& c) {
  const std::string props = "all_gather_dim = " + std::to_string(dim_attr(c, "dim")) + " : i64, " + group_properties(c);
  return c.fn.generic("all_gather", {c.in[0]}, props, {}, c.out);
}

Val emit_all_reduce(EmitContext& c) {
  const std::string props = group_properties(c);
  return c.fn.generic("all_reduce", {c.in[0]}, props, {c.fn.combiner_region("add", c.out.dtype)}, c.out);
}

Val emit_reduce_scatter(EmitContext& c) {
  const std::string props =
      group_properties(c) + ", scatter_dimension = " + std::to_string(dim_attr(c, "dim")) + " : i64";
  return c.fn.generic("reduce_scatter", {c.in[0]}, props, {c.fn.combiner_region("add", c.out.dtype)}, c.out);
}

Val emit_all_to_all(EmitContext& c) {
  const std::string props = "concat_dimension = " + std::to_string(dim_attr(c, "concat_dim")) +
                            " : i64, replica_groups = " + i64_matrix(replica_groups(c, c.get_string("axes"))) +
                            ", split_count = " + std::to_string(c.get_int("group_size")) +
                            " : i64, split_dimension = " + std::to_string(dim_attr(c, "split_dim")) + " : i64";
  return c.fn.generic("all_to_all", {c.in[0]}, props, {}, c.out);
}

// shard_slice: block rank(chip) of dim, rank(chip) read from a per-chip
// table at stablehlo.replica_id.
Val emit_shard_slice(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const int64_t dim = dim_attr(c, "dim");
  const int64_t block = c.out.shape[static_cast<size_t>(dim)];
  const auto groups = replica_groups(c, c.get_string("axes"));
  int64_t chips = 0;
  for (const auto& g : groups) chips += static_cast<int64_t>(g.size());
  Tensor offsets(DType::I64, {chips});
  for (const auto& g : groups) {
    for (size_t rank = 0; rank < g.size(); ++rank)
      offsets.data<int64_t>()[g[rank]] = static_cast<int64_t>(rank) * block;
  }
  const TensorType table_type{DType::I64, {chips}};
  const Val table = fn.constant(dense_literal(offsets, DType::I64), table_type);
  const Val replica = fn.emit("stablehlo.replica_id : tensor<ui32>", {DType::U32, {}});
  const Val chip = fn.convert(replica, DType::I64);
  const TensorType one{DType::I64, {1}};
  const Val entry = fn.emit("stablehlo.dynamic_slice " + table.ssa + ", " + chip.ssa + ", sizes = [1] : (" +
                                tensor_type(table_type) + ", tensor<i64>) -> " + tensor_type(one),
                            one);
  const Val offset = fn.reshape(entry, {});
  const Val zero = fn.scalar(0.0, DType::I64);
  const Shape& shape = c.in[0].type.shape;
  std::string starts, start_types;
  for (size_t d = 0; d < shape.size(); ++d) {
    starts += ", " + (static_cast<int64_t>(d) == dim ? offset.ssa : zero.ssa);
    start_types += ", tensor<i64>";
  }
  return fn.emit("stablehlo.dynamic_slice " + c.in[0].ssa + starts + ", sizes = " + int_list(c.out.shape) + " : (" +
                     tensor_type(c.in[0].type) + start_types + ") -> " + tensor_type(c.out),
                 c.out);
}

}  // namespace

void add_collective_emitters(OpTable<Emitter>& table) {
  table.set(K::AllGather, emit_all_gather)
      .set(K::AllReduce, emit_all_reduce)
      .set(K::ReduceScatter, emit_reduce_scatter)
      .set(K::AllToAll, emit_all_to_all)
      .set(K::ShardSlice, emit_shard_slice);
}

}  // namespace meshtest::frontends::stablehlo
