// Safetensors files: reading (JSON header with nlohmann-json, tensor data as
// zero-copy views over an mmap of the file), writing, the per-variant file
// of a folder named by an environment variable ($MESHTEST_WEIGHTS_DIR,
// $MESHTEST_INPUTS_DIR), and the check that a file's tensor fits what the
// graph declares. In core because both the model layers (weights) and the
// runner (saved tensors, user inputs) use it.
//
// Format: u64 little-endian header size N, N bytes of JSON
// {"<name>": {"dtype": "F32"|"BF16"|"I64"|"I32"|"BOOL"|"BFP8_B", "shape": [...],
// "data_offsets": [begin, end]}, "__metadata__": {...}}, then the data
// (offsets relative to its start). "BFP8_B" is meshtest's own: the tensor's
// tiled block bytes (core/bfp8_layout.h), what `meshtest codegen` stores of a
// bfp8_b weight as the device holds it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/tensor.h"

namespace meshtest {

// Throws meshtest::Error naming the file and what is wrong. write_safetensors
// stores f32, bf16, f16, f64, i8 .. i64, u8 .. u64, bool and bfp8_b tensors
// (safetensors names F32, BF16, F16, F64, I8 .. I64, U8 .. U64, BOOL, BFP8_B).
std::map<std::string, Tensor> read_safetensors(const std::string& path);
void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors);

// $<env_var>/<variant>.safetensors, when the variable is set and the file exists.
std::optional<std::string> variant_safetensors_file(const char* env_var, std::string_view variant);

// `t` (tensor `name` of file `path`) as the graph declares it: the shapes
// must be equal, and the dtypes too unless both are float dtypes (then `t`
// is converted). Throws meshtest::Error "<path>: <kind> '<name>' has shape
// [..], the model expects [..]" (or the same for the dtype).
Tensor fit_declared(const std::string& path, std::string_view kind, const std::string& name, const Tensor& t,
                    DType declared_dtype, const Shape& declared_shape);

}  // namespace meshtest
