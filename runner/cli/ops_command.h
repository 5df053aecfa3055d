// `meshtest ops [IR files or folders | selection]`: the op-by-op sweep. The
// ops of `--serialize` dumps (a dump folder's `*-frontend.mtir` stage; other
// `.mtir` files as they are), of StableHLO files (`*.mlir`, e.g. tt-xla's
// `--dump-irs` irs/shlo_*.mlir: every op of every function, ops_stablehlo.h)
// or of the selected cases' models are pulled out, de-duplicated by op kind,
// operand and result types (shapes, dtype) and attributes, and each runs
// alone through the compiler and the device against the CPU reference, with
// the per-op thresholds of op-level golden (runner/pipeline/op_golden.h).
// The table (op x shapes x dtype -> passed / failed / unsupported / compile
// error / ...) is printed and stored in DIR/ops.txt and DIR/ops.jsonl (with
// the stage each op reached and every place it was seen), the places also in
// DIR/provenance.txt; every failing single-op program is saved as IR text,
// DIR/failing/<op>_<n>.mtir, with its inputs in <op>_<n>.safetensors beside
// it, so it drops into a models root as an op test (frontends/mtir).
// `--backend pjrt --pjrt-plugin PATH` runs every op on a PJRT plugin instead
// of the simulated chip (each one-op graph written as StableHLO); the report
// names the backend that ran the ops.
#pragma once

#include <string>
#include <vector>

#include "backend/registry.h"
#include "runner/collection/collection.h"

namespace meshtest::runner {

struct OpsOptions {
  std::vector<std::string> paths;       // IR files or folders (also positionals that exist); empty: the selection
  std::vector<std::string> only;        // --only: these op names
  std::vector<std::string> skip;        // --skip: not these op names
  bool compile_only = false;            // --compile-only: compile each op, run nothing
  std::string out_dir = "meshtest-ops";  // --out
  std::string backend = std::string(backend::kDefaultBackend);  // --backend NAME
  std::string pjrt_plugin;                // --pjrt-plugin PATH (else $MESHTEST_PJRT_PLUGIN)
  std::vector<std::string> pjrt_options;  // --pjrt-option NAME=VALUE, repeated
};

// 0 when every op passed (compiled, with --compile-only), 1 when one did
// not or a StableHLO file does not parse, 2 for a usage error, a .mtir file
// that does not parse or a backend that fails check_backend (before any op),
// 5 for an empty selection.
int cmd_ops(const CommonOptions& common, const OpsOptions& options);

}  // namespace meshtest::runner
