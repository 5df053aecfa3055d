// The compile pipeline: the registry's passes under the pass manager, then
// (separately, at load time) weight materialization. Memory is planned before
// any weight is materialized, so a model too large for the device fails fast.
#include "compiler/compile.h"

#include "compiler/lower.h"
#include "core/error.h"
#include "core/mutation.h"

namespace meshtest::compiler {

CompileResult compile_program(const Graph& graph, const CompileOptions& options, const DumpHook& dump) {
  check_mutant_environment();
  CompileUnit unit{graph, std::nullopt, options, {}};
  PassManager manager = PassManager::default_pipeline(options);
  manager.run(unit, dump);
  if (!unit.program) throw CompileError("the pipeline did not lower the graph (was 'lower' skipped?)");
  return {std::move(*unit.program), std::move(unit.stats), manager.runs(), std::move(unit.sharding)};
}

void load_weights(const Graph& graph, DeviceProgram& program) { lower_weights(graph, program); }

Tensor load_weight(const Graph& graph, const DeviceProgram& program, const DeviceBuffer& buffer) {
  return lower_weight(graph, program, buffer);
}

DeviceProgram compile(const Graph& graph, const CompileOptions& options) {
  CompileResult result = compile_program(graph, options);
  load_weights(graph, result.program);
  return std::move(result.program);
}

}  // namespace meshtest::compiler
