// What the decoder-only language models (GPT-2, LLaMA, Mixtral) share outside
// their layers: sample inputs and the causal mask.
//
// Inputs: "input_ids" i64 [B, S] (uniform in [low, high)), "attention_mask"
// [1, 1, S, S] additive causal mask in the model dtype (0 on and below the
// diagonal, -1e9 above: what HF builds from a full padding mask).
#pragma once

#include <string_view>

#include "discovery/loader_sdk.h"
#include "models/common/load_options.h"

namespace meshtest::models {

Tensor causal_mask(int64_t seq, DType dtype);

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
