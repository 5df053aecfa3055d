// StableHLO files in `meshtest ops`: every op of every function of a `.mlir`
// file (e.g. tt-xla's `--dump-irs` irs/shlo_*.mlir) becomes a distinct op of
// the sweep, keyed by (op, attributes, operand/result types, the ops of its
// regions), with every file, function and line it came from. Each distinct
// op is cut out into a one-op module (its operands the arguments of @main,
// except those a `stablehlo.constant` of the function defines, which come
// along) and imported; the importer's "unsupported" message is kept when it
// does not take the op.
#pragma once

#include <filesystem>
#include <string>

#include "runner/cli/ops_sweep.h"

namespace meshtest::runner {

// Whether the sweep reads `file` as StableHLO (`*.mlir`).
bool is_stablehlo_file(const std::filesystem::path& file);

// The ops of `file` added to `ops` (constants and terminators are not ops of
// their own); returns the number of functions read. Throws ParseError
// ("file:line:col: ...") when the file does not parse.
int add_stablehlo_ops(const std::string& file, const OpsOptions& options, OpSet& ops);

}  // namespace meshtest::runner
