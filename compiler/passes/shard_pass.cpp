// Pass `shard`: sharding propagation (compiler/sharding.h) when the options
// carry a mesh; the unit's graph becomes the per-chip graph and unit.sharding
// the plan (split params/outputs, fallbacks). Statistics: collectives
// inserted, fallbacks.
#include "compiler/passes/passes.h"
#include "compiler/sharding.h"

namespace meshtest::compiler::passes {

void shard(CompileUnit& unit) {
  if (!unit.options.sharding) return;
  ShardingPlan plan = shard_graph(unit.graph, *unit.options.sharding);
  unit.count("shard.collectives", plan.collectives);
  unit.count("shard.fallbacks", static_cast<int64_t>(plan.fallbacks.size()));
  unit.sharding = std::move(plan);
}

}  // namespace meshtest::compiler::passes
