// `meshtest merge OUT IN...`: combines the stores written by CI shards into
// one run in OUT. From each input its most recent run is taken; their
// results become one run whose id is --run-id, else the first input's run id
// (shards started with the same `run --run-id` keep it). The merged run
// starts at the earliest start and is finished when every shard finished.
#pragma once

#include <string>
#include <vector>

namespace meshtest::runner {

int cmd_merge(const std::string& output, const std::vector<std::string>& inputs, const std::string& run_id);

}  // namespace meshtest::runner
