// The writer options of a case's program: mesh and argument splits.
#include "pjrt/case_program.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace meshtest::pjrt {

frontends::stablehlo::WriteOptions write_options_for(const ShardingRequest* sharding) {
  frontends::stablehlo::WriteOptions options;
  if (sharding == nullptr) return options;
  options.mesh = sharding->mesh;
  for (const auto& [name, spec] : sharding->specs) {
    Sharding s;
    for (const auto& axes : spec) {
      std::vector<int> ids;
      for (const std::string& axis : axes) {
        const int id = sharding->mesh.axis_index(axis);
        if (id < 0) throw Error("shard spec of '" + name + "' names mesh axis '" + axis + "', not in the mesh");
        ids.push_back(id);
      }
      s.dims.push_back(ids);
    }
    options.shardings[name] = s;
  }
  return options;
}

}  // namespace meshtest::pjrt
