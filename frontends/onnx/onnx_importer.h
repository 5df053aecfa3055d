// The ONNX importer: a model file (opsets 7-18) into the graph IR. Initializers
// become weights named as in the file, aliasing the parsed file (or a mapping
// of its external data) rather than copied; nodes whose operands are known at
// import time (Shape/Constant/Cast/Unsqueeze/Gather-on-shape chains) are
// folded by the CPU reference; dynamic input dimensions are pinned by the
// caller. Anything it cannot import throws Error naming the node, its op
// type and the opset — never a crash.
#pragma once

#include <map>
#include <string>

#include "core/graph.h"

namespace meshtest::frontends::onnx_import {

struct ImportOptions {
  std::string graph_name;                    // default: the file's stem
  std::map<std::string, int64_t> dims;       // symbolic dimension ("N") -> size
  std::map<std::string, Shape> input_shapes;  // graph input -> its whole shape
  // Graph inputs whose values are fixed (shape, axes or scales fed as inputs):
  // they become known data, folded like constants, and are no graph inputs.
  std::map<std::string, Tensor> constant_inputs;
  // The model file as "path:size:mtime" (import_onnx_file sets it): with it,
  // initializers get a Param::data_source and the compile cache never reads
  // their bytes. Empty (bytes in memory): hashed by content.
  std::string file_identity;
};

// The lowest and highest default-domain opset the importer reads (6: the
// last with legacy `broadcast`/`axis` attributes, still in the PyTorch-made
// models of the ONNX test data).
constexpr int kMinOpset = 6;
constexpr int kMaxOpset = 18;

Graph import_onnx_file(const std::string& path, const ImportOptions& options);
// The same from bytes already in memory (the fuzz target); external data is
// looked up in `model_dir`.
Graph import_onnx_bytes(const std::string& bytes, const std::string& model_dir, const ImportOptions& options);

}  // namespace meshtest::frontends::onnx_import
