// The declarative ONNX loader: a `loader.yaml` next to ONNX files, read into
// an sdk::ModelLoader (variants, each an ONNX file relative to the loader,
// its inputs as shape/dtype/distribution/seed or tensor files, pinned
// dimensions, model info, training output, mesh config and shard spec by
// initializer name). Reading the YAML is all `collect` does: the ONNX file
// is opened by load_model only. A malformed loader.yaml throws Error with
// file:line:column.
#pragma once

#include <memory>
#include <string>

#include "discovery/loader_sdk.h"

namespace meshtest::frontends::onnx_import {

std::shared_ptr<sdk::ModelLoader> load_onnx_loader(const std::string& path);

}  // namespace meshtest::frontends::onnx_import
