// Pass `verify`: shape and dtype inference and checks of every op; errors
// name the op ("op #12 conv2d: ..."). Counts the ops it checked.
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

void verify(CompileUnit& unit) {
  verify_graph(unit.graph);
  unit.count("verify.ops", static_cast<int64_t>(unit.graph.ops.size()));
}

}  // namespace meshtest::compiler::passes
