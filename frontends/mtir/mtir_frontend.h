// Op and graph tests as data: an IR text file (`*.mtir`, what `--serialize`
// and `meshtest-opt` write and read) under a models root is a test case. Its
// loader folder is the file's path without the extension ("ops/gelu_1x128"),
// one unnamed variant, framework "mtir", so its ids follow the usual scheme
// ("ops/gelu_1x128-single_device-inference") and it takes the same run
// modes, YAML expectations and results as a model. Inputs are random by
// declared shape and dtype (random_inputs), or taken by name from
// `<stem>.safetensors` beside the file when it exists; that file also gives
// data to weights the text declares as `= data`. A failing op saved by
// `meshtest ops` is such a file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "discovery/loader_sdk.h"
#include "frontends/frontend_registry.h"

namespace meshtest::frontends {

// The extension pattern the registry matches (`*.mtir`).
constexpr const char* kMtirFilePattern = "*.mtir";

Frontend mtir_frontend();

// Inputs for every graph input, by declared shape and dtype, from `seed`:
// floats N(0, 1) (U(0.5, 2) when they feed log, sqrt or rsqrt); integers uniform in [0, n) where n is the row count of the
// smallest embedding table they index (so ids stay in range), else 2.
sdk::Inputs random_inputs(const Graph& graph, uint64_t seed);

}  // namespace meshtest::frontends
