// The declarative loader: a `loader.yaml` next to model files, read into an
// sdk::ModelLoader. Each variant names its model, relative to the loader:
// an ONNX file (`onnx: m.onnx`) or a StableHLO program (`stablehlo: f.mlir`,
// loader_stablehlo.h: inputs arg0, arg1, ... or their labels, shapes and
// dtypes from the program when not given, inputs not listed random), and
// describes the rest the same way for both: its inputs as
// shape/dtype/distribution/seed or tensor files, pinned dimensions (ONNX),
// model info, training output, mesh config and shard spec by initializer
// (StableHLO: input) name. Reading the YAML is all `collect` does: the model
// file is opened by load_model only (a StableHLO file must exist). A
// malformed loader.yaml throws Error with file:line:column.
#pragma once

#include <memory>
#include <string>

#include "discovery/loader_sdk.h"

namespace meshtest::frontends::onnx_import {

std::shared_ptr<sdk::ModelLoader> load_onnx_loader(const std::string& path);

}  // namespace meshtest::frontends::onnx_import
