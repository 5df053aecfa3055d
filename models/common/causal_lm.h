// What the decoder-only language models (GPT-2, LLaMA, Mixtral) share outside
// their layers: sample inputs and the causal mask.
//
// Inputs: "input_ids" i64 [B, S] (token_ids below), "attention_mask"
// [1, 1, S, S] additive causal mask in the model dtype (0 on and below the
// diagonal, -1e9 above: what HF builds from a full padding mask).
#pragma once

#include <string_view>

#include "discovery/loader_sdk.h"
#include "models/common/load_options.h"

namespace meshtest::models {

Tensor causal_mask(int64_t seq, DType dtype);

// Token ids in [low, high) as text has them, with repeats: each position
// takes, with probability 1/2, one of kFrequentTokens ids (drawn once per
// seed over the whole range: the "the", ",", "." of the sample), else a
// uniform id. Uniform ids alone almost never repeat in a small sample (256
// positions over a 50257-token vocabulary: 0.65 repeats expected), so an
// embedding gradient that overwrites a row instead of accumulating it would
// change nothing; here every frequent id occurs about B*S/32 times.
inline constexpr int kFrequentTokens = 16;
Tensor token_ids(const Shape& shape, uint64_t seed, int64_t low, int64_t high);

// input_ids and attention_mask as above (full and prefill phases).
sdk::Inputs causal_lm_inputs(std::string_view variant, SequenceDims dims, int64_t token_low, int64_t token_high,
                             DType dtype);

// A decode step's own inputs (kv_cache.h): "input_ids" [B, 1] (its own draw)
// and "attention_mask" [1, 1, 1, S+1] of zeros (the new token sees every
// cached position and itself); the runner adds past_key_values.*.
sdk::Inputs decode_step_inputs(std::string_view variant, SequenceDims dims, int64_t token_low, int64_t token_high,
                               DType dtype);

// The phase's inputs: causal_lm_inputs, or decode_step_inputs for decode.
sdk::Inputs phase_inputs(std::string_view variant, sdk::LmPhase phase, SequenceDims dims, int64_t token_low,
                         int64_t token_high, DType dtype);

}  // namespace meshtest::models
