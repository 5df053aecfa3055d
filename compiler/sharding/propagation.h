// Private to compiler/: the shard pass's propagation driver.
#pragma once

#include "compiler/sharding.h"

namespace meshtest::compiler::sharding {

// The local graph of `global` under `request`: parameters split as the
// request says, then every op in order through its sharding rule (gathered
// and run replicated when it has none or its rule declines), then outputs
// left in their requested splits. Fills `plan`.
Graph propagate_shardings(const Graph& global, const ShardingRequest& request, ShardingPlan& plan);

}  // namespace meshtest::compiler::sharding
