// Private to compiler/: a peephole over the shard pass's local graph that
// merges collectives the op-by-op rules leave in pairs.
#pragma once

#include "compiler/sharding.h"

namespace meshtest::compiler::sharding {

// all_reduce over mesh axes A whose only use is a shard_slice over the same
// axes A (partial sums that must leave split: each weight's gradient in its
// weight's split when the batch is split over that weight's axes, as in
// FSDP / ZeRO training) becomes one reduce_scatter over A along the slice's
// dim: the same values on every chip (reduce_scatter hands rank r of the
// group block r, as shard_slice keeps it) for half the link traffic of a ring
// all_reduce. The all_reduce is left dead for remove_dead_ops. Returns how
// many pairs were merged (the plan counts one collective fewer per pair).
int fuse_reduce_scatter(Graph& local);

}  // namespace meshtest::compiler::sharding
