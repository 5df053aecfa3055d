// all_reduce + shard_slice over the same mesh axes -> reduce_scatter.
#include "compiler/sharding/collective_fusion.h"

#include <vector>

namespace meshtest::compiler::sharding {

int fuse_reduce_scatter(Graph& local) {
  std::vector<int> uses(local.values.size(), 0);
  std::vector<int> producer(local.values.size(), -1);
  for (size_t i = 0; i < local.ops.size(); ++i) {
    for (ValueId v : local.ops[i].inputs) ++uses[static_cast<size_t>(v)];
    producer[static_cast<size_t>(local.ops[i].output)] = static_cast<int>(i);
  }
  for (const GraphOutput& o : local.outputs) ++uses[static_cast<size_t>(o.value)];
  int merged = 0;
  for (Op& slice : local.ops) {
    if (slice.kind != OpKind::ShardSlice) continue;
    const ValueId reduced = slice.inputs.at(0);
    const int p = producer[static_cast<size_t>(reduced)];
    if (p < 0 || uses[static_cast<size_t>(reduced)] != 1) continue;
    const Op& all_reduce = local.ops[static_cast<size_t>(p)];
    if (all_reduce.kind != OpKind::AllReduce ||
        all_reduce.attrs.get_string("axes") != slice.attrs.get_string("axes")) {
      continue;
    }
    slice.kind = OpKind::ReduceScatter;
    slice.inputs = {all_reduce.inputs.at(0)};  // dim, axes and group_size stay the slice's
    ++merged;
  }
  return merged;
}

}  // namespace meshtest::compiler::sharding
