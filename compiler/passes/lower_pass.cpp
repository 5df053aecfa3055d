// Pass `lower`: the graph becomes a device program — one buffer per used
// value, one instruction per op, outputs by name (see compiler/lower.h).
#include "compiler/lower.h"
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

void lower(CompileUnit& unit) {
  unit.program = lower_graph(unit.graph);
  unit.count("lower.instructions", static_cast<int64_t>(unit.program->instrs.size()));
  unit.count("lower.buffers", static_cast<int64_t>(unit.program->buffers.size()));
}

}  // namespace meshtest::compiler::passes
