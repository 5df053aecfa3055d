// Safetensors weights for the native loaders: reading (JSON header with
// nlohmann-json, tensor data as zero-copy views over an mmap of the file),
// writing (tests, tools), and replacing a graph's lazy weights with the ones
// in $MESHTEST_WEIGHTS_DIR/<variant>.safetensors when that file exists.
//
// Format: u64 little-endian header size N, N bytes of JSON
// {"<name>": {"dtype": "F32"|"BF16"|"I64"|"I32", "shape": [...],
// "data_offsets": [begin, end]}, "__metadata__": {...}}, then the data
// (offsets relative to its start).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/graph.h"
#include "core/graph_builder.h"
#include "core/tensor.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

// Throws meshtest::Error naming the file and what is wrong.
std::map<std::string, Tensor> read_safetensors(const std::string& path);
void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors);

// $MESHTEST_WEIGHTS_DIR/<variant>.safetensors, when the variable is set and
// the file exists.
std::optional<std::string> weights_file(std::string_view variant);

// Gives every weight of `graph` its data from `path`: names must match
// exactly (no missing, no extra tensors), shapes must be equal, and the file
// dtype must be a float dtype when the weight's is (converted to the declared
// dtype) or equal to it otherwise. Throws meshtest::Error naming the file and
// the parameter.
void load_weights(Graph& graph, const std::string& path);

// What every native loader returns: the finished graph, its weights loaded
// from weights_file(variant) when there is one (lazy otherwise).
sdk::Model finish_model(GraphBuilder& builder, std::string_view variant);

}  // namespace meshtest::models
