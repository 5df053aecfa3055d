// Test-only fault injection into the case pipeline, for the engine's
// fault-injection tests (loaders can only fail in their own phases; this
// reaches compile, execute and compare too).
//
// MESHTEST_TEST_FAIL_PHASE="<id part>:<phase>[,<id part>:<phase>...]": a case
// whose test id contains <id part> throws RuntimeError("injected failure
// ...") as it enters <phase> (a phase_name(): load_model, load_inputs,
// golden, compile, execute, compare). Unset: no effect and no cost beyond
// one getenv per phase.
#pragma once

#include <string_view>

namespace meshtest::runner {

void fail_phase_if_injected(std::string_view test_id, std::string_view phase);

}  // namespace meshtest::runner
