// Private to compiler/sharding*: what a sharding rule works with while the
// shard pass builds the local graph (the per-chip graph) op by op — the global
// graph, the split of every global value seen so far, and helpers that emit
// local ops and collectives. Rules (one file per op family, see
// sharding_rules.h) and the propagation driver (propagation.cpp) share it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/sharding.h"

namespace meshtest::compiler::sharding {

// A global value as the local graph has it.
struct Local {
  ValueId value = kNoValue;  // in the local graph
  Sharding sharding;
};

class ShardContext {
 public:
  ShardContext(const Graph& global, const Mesh& mesh, ShardingPlan& plan);

  const Mesh& mesh() const { return mesh_; }
  const Graph& global() const { return global_; }
  const TensorType& gtype(ValueId global_value) const { return global_.type(global_value); }
  const TensorType& local_type(ValueId local_value) const { return out_.type(local_value); }
  Graph& local_graph() { return out_; }
  ShardingPlan& plan() { return plan_; }
  // The local form of global value `v` (set once its producer is sharded).
  Local& local(ValueId global_value) { return map_[static_cast<size_t>(global_value)]; }

  // Appends an op to the local graph (result type inferred).
  ValueId emit(OpKind kind, std::vector<ValueId> inputs, Attrs attrs);
  // A collective over mesh `axes` (counted in the plan).
  ValueId collective(OpKind kind, ValueId v, const std::vector<int>& axes, Attrs attrs);
  // The operand fully replicated (all_gather per split dim).
  Local gather(Local l);
  Local all_reduce(ValueId v, const std::vector<int>& axes, Sharding s);
  // A replicated weight of the local graph holding `data`.
  ValueId add_constant_param(const std::string& name, Tensor data);

  // `v`'s split under a broadcast to an output split `s` (dims of extent 1
  // and missing leading dims stay whole).
  Sharding broadcast_split(ValueId v, const Sharding& s) const;
  // Splits an operand that is whole along some dims of `want` to `want`:
  // made again in the shard shape when it is a free replicated value, else
  // each chip keeps its block (shard_slice, no data moves). nullopt when the
  // operand is split differently from `want` somewhere.
  std::optional<ValueId> split_to(ValueId global_value, const Local& l, const Sharding& want);

 private:
  bool free_along(ValueId v, size_t d, int depth = 0) const;
  bool free_along_splits(ValueId v, const Sharding& s) const;
  ValueId remake_split(ValueId v, const Sharding& s);

  const Graph& global_;
  Mesh mesh_;
  ShardingPlan& plan_;
  Graph out_;
  std::vector<Local> map_;
  std::vector<int> producer_;  // global value -> index of the op making it (-1: a parameter)
};

// The local values of `in`, in order.
std::vector<ValueId> values_of(const std::vector<Local>& in);
// Whether a split uses one mesh axis on two dims.
bool uses_an_axis_twice(const Sharding& s);

// One output dim's split from the operands that map onto it: the first
// operand decides (`set` turns true); a later one split differently is a
// conflict (false).
template <class Axes>
bool join_split(Axes& slot, bool& set, const Axes& axes) {
  if (!set) {
    slot = axes;
    set = true;
    return true;
  }
  return slot == axes;
}

}  // namespace meshtest::compiler::sharding
