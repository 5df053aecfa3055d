// `meshtest coverage [selection] [--results FILE...] [--require all|single-chip]`:
// compiles the selected cases (compile-only, in this process) or reads the
// results of earlier runs (`run --json FILE`, compile-only or not), and
// prints which device kernel variants and compiler passes each case reached
// and which none did (runner/cli/device_coverage.h). Exit 1 when the gate's
// problems are not empty: an unreached path without a declared reason, an
// undeclared path, a stale reason, a case that did not compile.
#pragma once

#include <string>
#include <vector>

#include "runner/cli/device_coverage.h"
#include "runner/collection/collection.h"
#include "runner/pipeline/compile_settings.h"

namespace meshtest::runner {

struct CoverageOptions {
  std::vector<std::string> results;  // --results: JSON lines files instead of compiling the selection
  std::string require = "all";       // --require all | single-chip
  CompileSettings compile;           // cache folder, settings that change what compiles
  int verbosity = 0;                 // -v: every case of each item
};

int cmd_coverage(const CommonOptions& common, const CoverageOptions& options);

}  // namespace meshtest::runner
