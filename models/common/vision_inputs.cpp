// Image model inputs.
#include "models/common/vision_inputs.h"

#include "core/rng.h"
#include "models/common/init.h"
#include "models/common/load_options.h"

namespace meshtest::models {

int64_t batch_option(const sdk::LoadOptions& options, std::string_view loader) {
  return option_in_range(options.batch_size, 1, 1, 1 << 12, "batch_size", loader);
}

sdk::Inputs image_inputs(std::string_view variant, const sdk::LoadOptions& options, int64_t channels, int64_t size,
                         std::string_view loader) {
  const int64_t batch = batch_option(options, loader);
  sdk::Inputs inputs;
  inputs["image"] = float_input(random_normal({batch, channels, size, size}, input_seed(variant, "image")),
                                model_dtype(options, loader));
  return inputs;
}

}  // namespace meshtest::models
