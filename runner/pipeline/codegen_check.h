// Generated C++ of a case (`meshtest codegen ID --out DIR`, `meshtest run
// --emitc`): once the device has run, the backend writes the case's compiled
// program as a standalone C++ program (codegen/cpp_codegen.h); --emitc builds
// it against the installed meshtest package (cached by program hash), runs it
// and compares its outputs with the in-process device's: bit for bit, or by
// the case's PCC when its YAML says codegen_assert_exact: false (other
// runners' name: emitpy_assert_exact).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/cpp_codegen.h"
#include "comparators/metrics.h"
#include "reports/case_result.h"

namespace meshtest::runner {

struct CodegenSettings {
  std::string out_dir;     // `meshtest codegen --out DIR`: write the case's program there
  bool check = false;      // run --emitc: build, run, compare with the device
  std::string cache_dir;   // builds go to <cache_dir>/codegen/<key>/; empty: the compile cache's default folder
  std::string sdk_prefix;  // --sdk-prefix; empty: $MESHTEST_SDK_PREFIX, else found next to the executable
};

// The installed meshtest package's prefix (holding lib/cmake/meshtest):
// settings.sdk_prefix, else $MESHTEST_SDK_PREFIX, else <executable dir>/..
// (an installed meshtest), else <executable dir>/sdk (a build tree after
// `cmake --install build --prefix build/sdk`). Throws Error saying how to install it.
std::string find_sdk_prefix(const CodegenSettings& settings);

struct CodegenCheck {
  std::string status;   // matched_exact | matched_pcc | mismatch | build_failed | run_failed
  std::string message;  // why not matched; empty when matched
  bool built = false;   // false: the build was cached
};

// Builds `program` in <cache>/codegen/<key>/ unless built there already (key:
// the program's hash and the installed package's libraries; the folder keeps
// the source it built: edit it and delete build/ to try a change), runs it on
// its tensors, and compares its outputs with `device` (program.outputs'
// order): bit for bit when `exact`, else by `comparison`'s PCC and scale checks.
CodegenCheck check_generated_program(const codegen::GeneratedProgram& program, const std::vector<Tensor>& device,
                                     bool exact, const comparators::ComparisonConfig& comparison,
                                     const CodegenSettings& settings);

// What a case does after its device run when `settings` asks for codegen:
// writes the program to out_dir and/or checks it; fills the record's
// codegen_status and codegen_seconds. Returns the failure to report (empty
// when matched, only written, or not generated: a backend without
// codegen is recorded as "not_generated: <why>", not a failure).
std::string run_codegen(backend::Backend& backend, backend::Executable& executable,
                        const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& device, bool exact,
                        const comparators::ComparisonConfig& comparison, const CodegenSettings& settings,
                        reports::CaseResult& record);

}  // namespace meshtest::runner
