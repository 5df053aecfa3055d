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

Tensor token_ids(const Shape& shape, uint64_t seed, int64_t low, int64_t high) {
  Tensor ids = random_int(shape, seed, low, high);
  Rng rng(mix_seed(seed, hash_seed("frequent tokens")));
  int64_t pool[kFrequentTokens];
  for (int64_t& id : pool) id = rng.uniform_int(low, high);
  int64_t* p = ids.data<int64_t>();
  for (int64_t i = 0; i < ids.numel(); ++i) {
    if (rng.uniform() < 0.5) p[i] = pool[rng.uniform_int(0, kFrequentTokens)];
  }
  return ids;
}

sdk::Inputs causal_lm_inputs(std::string_view variant, SequenceDims dims, int64_t token_low, int64_t token_high,
                             DType dtype) {
  sdk::Inputs inputs;
  inputs["input_ids"] = token_ids({dims.batch, dims.seq}, input_seed(variant, "input_ids"), token_low, token_high);
  inputs["attention_mask"] = causal_mask(dims.seq, dtype);
  return inputs;
}

sdk::Inputs decode_step_inputs(std::string_view variant, SequenceDims dims, int64_t token_low, int64_t token_high,
                               DType dtype) {
  sdk::Inputs inputs;
  inputs["input_ids"] = random_int({dims.batch, 1}, input_seed(variant, "decode_input_ids"), token_low, token_high);
  inputs["attention_mask"] =
      float_input(Tensor::from_f32({1, 1, 1, dims.seq + 1}, std::vector<float>(static_cast<size_t>(dims.seq + 1), 0.0f)),
                  dtype);
  return inputs;
}

sdk::Inputs phase_inputs(std::string_view variant, sdk::LmPhase phase, SequenceDims dims, int64_t token_low,
                         int64_t token_high, DType dtype) {
  return phase == sdk::LmPhase::Decode ? decode_step_inputs(variant, dims, token_low, token_high, dtype)
                                       : causal_lm_inputs(variant, dims, token_low, token_high, dtype);
}

}  // namespace meshtest::models
