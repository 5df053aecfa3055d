// What the image models share in load_inputs: the batch_size option and a
// normalised image (ImageNet mean/std applied, so standard normal pixels).
#pragma once

#include <string_view>

#include "discovery/loader_sdk.h"

namespace meshtest::models {

// batch_size (default 1, at most 4096).
int64_t batch_option(const sdk::LoadOptions& options, std::string_view loader);

// {"image": [B, channels, size, size]} in the model dtype, seeded by variant.
sdk::Inputs image_inputs(std::string_view variant, const sdk::LoadOptions& options, int64_t channels, int64_t size,
                         std::string_view loader);

}  // namespace meshtest::models
