// Decoder-only language model helpers: inputs and the causal mask.
#include "models/common/causal_lm.h"

#include <vector>

#include "core/rng.h"
#include "models/common/init.h"
#include "models/common/load_options.h"

namespace meshtest::models {

Tensor causal_mask(int64_t seq, DType dtype) {
  std::vector<float> mask(static_cast<size_t>(seq * seq), 0.0f);
  for (int64_t i = 0; i < seq; ++i) {
    for (int64_t j = i + 1; j < seq; ++j) mask[static_cast<size_t>(i * seq + j)] = -1e9f;
  }
  return float_input(Tensor::from_f32({1, 1, seq, seq}, mask), dtype);
}

sdk::Inputs causal_lm_inputs(std::string_view variant, SequenceDims dims, int64_t token_low, int64_t token_high,
                             DType dtype) {
  sdk::Inputs inputs;
  inputs["input_ids"] =
      random_int({dims.batch, dims.seq}, input_seed(variant, "input_ids"), token_low, token_high);
  inputs["attention_mask"] = causal_mask(dims.seq, dtype);
  return inputs;
}

}  // namespace meshtest::models
