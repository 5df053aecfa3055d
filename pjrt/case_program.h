// A case's graph as the StableHLO program a PJRT plugin compiles (and that
// `meshtest export --format stablehlo` / `run --serialize` write): the
// writer's options for the case's sharding request — the mesh, and each
// sharded parameter's split as its argument's `mhlo.sharding`.
#pragma once

#include "core/sharding.h"
#include "frontends/stablehlo/stablehlo_writer.h"

namespace meshtest::pjrt {

// No sharding request (null): one device, no shardings. Throws
// meshtest::Error for a spec that names an axis the mesh lacks.
frontends::stablehlo::WriteOptions write_options_for(const ShardingRequest* sharding);

}  // namespace meshtest::pjrt
