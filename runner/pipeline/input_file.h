// User inputs from a safetensors file: $MESHTEST_INPUTS_DIR/<variant>.safetensors
// (the folder convention of $MESHTEST_WEIGHTS_DIR) replaces a loader's
// generated inputs by name, for every loader (native, YAML, external).
#pragma once

#include <string_view>

#include "discovery/loader_sdk.h"

namespace meshtest::runner {

// Replaces each input of `inputs` named in the variant's file, when there is
// one. A tensor must have the generated input's shape and its dtype (any
// float dtype for a float input, converted); a tensor naming no input is an
// error. Throws meshtest::Error naming the input, the file and both shapes.
void apply_input_file(std::string_view variant, sdk::Inputs& inputs);

}  // namespace meshtest::runner
