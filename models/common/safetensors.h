// Safetensors weights for the native loaders: replacing a graph's lazy
// weights with the ones in $MESHTEST_WEIGHTS_DIR/<variant>.safetensors when
// that file exists. The file format itself (read/write) is core's
// (core/safetensors.h), named here too for the loaders and their tests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/graph.h"
#include "core/graph_builder.h"
#include "core/safetensors.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

using ::meshtest::read_safetensors;
using ::meshtest::write_safetensors;

// $MESHTEST_WEIGHTS_DIR/<variant>.safetensors, when the variable is set and
// the file exists.
std::optional<std::string> weights_file(std::string_view variant);

// Gives every weight of `graph` its data from `path`: names must match
// exactly (no missing weight), shapes must be equal, and the file dtype must
// be a float dtype when the weight's is (converted to the declared dtype) or
// equal to it otherwise. A tensor that names no weight is an error unless it
// is on the known-extra list (known_extra_tensors.h): those are ignored with
// one warning on stderr naming them. Throws meshtest::Error naming the file
// and the parameter.
void load_weights(Graph& graph, const std::string& path);

// What every native loader returns: the finished graph, its weights loaded
// from weights_file(variant) when there is one (lazy otherwise).
sdk::Model finish_model(GraphBuilder& builder, std::string_view variant);

}  // namespace meshtest::models
