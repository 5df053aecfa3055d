// StableHLO -> meshtest Graph: the importer that turns a parsed module
// (mlir_ast.h, from mlir_parser.h) into a graph the compiler and both
// executors take.
//
// Entry: `@main`, else the only public function. Its arguments become graph
// inputs `arg0`, `arg1`, ... by position, its results outputs `out0`, ...
// `func.call` is inlined, `stablehlo.composite` becomes the meshtest op its
// name maps to (tenstorrent.gelu / gelu_tanh / rms_norm / layer_norm /
// scaled_dot_product_attention, meshtest.embedding / embedding_backward) or
// its decomposition inlined; tuples, `optimization_barrier` and control flow
// whose predicate or trip count folds to a constant are resolved statically
// (while loops unrolled). Dense constants become graph weights with data
// (f32 splats: `constant` ops). The spellings of meshtest's fused ops the
// writer uses (convolution, dot_general, reduce_window, ...) are then folded
// back into those ops where exactly equivalent (stablehlo_import_patterns.cpp).
// Whatever the importer cannot take is a
// ParseError "file:line:col: unsupported <op>: <reason>".
//
// `stablehlo.custom_call @check.expect_close / expect_eq / expect_almost_eq
// (value, expected)` is not part of the graph: the checked value becomes a
// graph output and the import carries the check, evaluated on outputs by
// evaluate_checks (stablehlo_checks.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "discovery/loader_sdk.h"
#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// One `check.expect_*` of the program: the graph output it checks and the
// value it must have.
struct ExpectCheck {
  enum class Kind {
    Close,     // check.expect_close: within 3 ULP of the element type (non-finite: same bits, or both NaN)
    Equal,     // check.expect_eq: exactly equal (NaN equals NaN)
    AlmostEq,  // check.expect_almost_eq: |got - want| <= 0.001
  };
  Kind kind = Kind::Close;
  std::string output;  // graph output name
  Tensor expected;     // in the checked value's element type
  Location loc;        // of the custom_call
};

struct StablehloImport {
  Graph graph;
  std::vector<ExpectCheck> checks;
  // Labels the program gives inputs and outputs (`jax.arg_info`,
  // `jax.result_info`, `meshtest.name`), by graph input / output name; the
  // graph has no field for them.
  std::map<std::string, std::string> labels;
  // Entry-argument shardings (`mhlo.sharding`) that express a meshtest shard
  // spec, by input name, and the mesh they split over; empty when none.
  sdk::ShardSpec shard_spec;
  sdk::MeshConfig mesh;
  // Graph input names of the entry arguments marked `meshtest.kind =
  // "weight"` (what the writer emits with WriteOptions::mark_weights): a
  // consumer that knows weights (meshtest's PJRT plugin) makes them weights.
  std::set<std::string> weight_arguments;
};

// Imports `module` (parsed from `file_name`, used in messages).
StablehloImport import_stablehlo(const Module& module, const std::string& file_name);

// Reads, parses and imports a `.mlir` file.
StablehloImport import_stablehlo_file(const std::string& path);

}  // namespace meshtest::frontends::stablehlo
