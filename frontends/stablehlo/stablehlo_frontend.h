// StableHLO programs as test cases: a `.mlir` file under a models root is a
// case, as a `.mtir` one is (frontends/mtir/mtir_frontend.h). Its loader
// folder is the file's path without the extension, one unnamed variant,
// framework "stablehlo". The graph is the import of its entry function
// (stablehlo_import.h): inputs `arg0`, `arg1`, ... taken by name from
// `<stem>.safetensors` beside the file when it holds them (or by the
// argument's label, `meshtest.name` / `jax.arg_info`: so what `meshtest
// export` writes, weights by their names, runs as it is), else random by
// type (random_inputs, seeded by the file name).
//
// Expected values: `<stem>.expected.safetensors` beside the file (the
// framework's outputs by graph output name, out0, out1, ..., held to
// check_framework_output's allclose) and the
// program's own `check.expect_*` calls (evaluated when every input came from
// the file, or there are none). The CPU reference is checked against them
// before the case compares the device with the reference: load_inputs runs
// the reference once and throws when it disagrees, so a reader or reference
// bug is reported as its own failure of the case, never as a device one.
#pragma once

#include "frontends/frontend_registry.h"

namespace meshtest::frontends {

// The extension pattern the registry matches (`*.mlir`).
constexpr const char* kStablehloFilePattern = "*.mlir";

Frontend stablehlo_frontend();

}  // namespace meshtest::frontends
