// The compile pipeline: verify -> lower structure -> plan memory -> weights.
// Memory is planned before any weight is materialized, so a model too large
// for the device fails fast without allocating its weights.
#include "compiler/compile.h"

#include "compiler/liveness.h"
#include "compiler/lower.h"

namespace meshtest::compiler {

DeviceProgram compile(const Graph& graph, const CompileOptions& options) {
  verify_graph(graph);
  DeviceProgram program = lower_graph(graph, options);
  plan_memory(program, options.dram_capacity_bytes);
  lower_weights(graph, program);
  return program;
}

}  // namespace meshtest::compiler
