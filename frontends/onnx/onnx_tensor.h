// ONNX TensorProto to meshtest Tensor: dtype mapping, raw and typed data,
// external data files (confined to the model's folder, sizes checked before
// anything is allocated or mapped) and the `.pb` tensor files of the ONNX
// test data. Raw data is not copied: the tensor aliases the parsed proto (or
// a read-only mapping of the external file), which its owner keeps alive.
#pragma once

#include <memory>
#include <string>

#include "core/tensor.h"

namespace onnx {
class TensorProto;
}

namespace meshtest::frontends::onnx_import {

// The meshtest dtype holding ONNX element type `onnx_type` (FLOAT16, DOUBLE
// and BFLOAT16 are held as f32/bf16; smaller integers as i32); throws Error
// naming the type when meshtest cannot hold it.
DType dtype_of_onnx(int onnx_type);

// The tensor in `proto`. `owner` keeps the proto alive (the tensor may alias
// its raw data); `model_dir` is where external data files must lie (empty:
// none may be read, as for a node attribute's tensor).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::shared_ptr<const void>& owner,
                         const std::string& model_dir);

// Reads a serialized TensorProto file (`input_0.pb`), and the name it holds
// into `name` when given; throws Error naming the file.
Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);

}  // namespace meshtest::frontends::onnx_import
