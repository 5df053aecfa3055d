// A loader.yaml variant that names a StableHLO program (`stablehlo: f.mlir`
// where an ONNX variant has `onnx: m.onnx`; everything else about the
// variant is described the same way): the program's import
// (frontends/stablehlo/stablehlo_import.h) with its inputs named as
// loader.yaml names them.
#pragma once

#include <set>
#include <string>

#include "core/graph.h"
#include "discovery/loader_sdk.h"

namespace meshtest::frontends::onnx_import {

struct LoaderProgram {
  Graph graph;
  sdk::ShardSpec shard_spec;  // the program's own (mhlo.sharding), by input name; empty when none
  sdk::MeshConfig mesh;       // the mesh that spec splits over
};

// Imports `path`. The graph inputs are `arg0`, `arg1`, ... by position; an
// entry of `input_names` that is an argument's label (`jax.arg_info`,
// `meshtest.name`) instead renames that argument to the label. Throws Error
// ("<path>: loader.yaml input 'x' is neither ...") when an entry names
// neither, and the importer's ParseError ("file:line:col: ...") when the
// program does not read or import.
LoaderProgram import_loader_program(const std::string& path, const std::set<std::string>& input_names);

}  // namespace meshtest::frontends::onnx_import
