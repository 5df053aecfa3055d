// The KV cache of a causal LM's prefill and decode phases (sdk::LmPhase in
// discovery/loader_sdk.h): a decode graph takes each layer's past keys and
// values as inputs "past_key_values.<l>.key" / ".value" [B, kv_heads, S,
// head_dim]; prefill and decode graphs output each layer's present keys and
// values (past + the new tokens, after RoPE) as "present.<l>.key" / ".value",
// after the logits. The full phase has no cache: no extra inputs or outputs.
#pragma once

#include <string>
#include <vector>

#include "core/graph_builder.h"
#include "discovery/loader_sdk.h"
#include "models/common/load_options.h"

namespace meshtest::models {

// One layer's keys and values, [B, kv_heads, positions, head_dim]
// (kNoValue: none).
struct LayerKv {
  ValueId key = kNoValue;
  ValueId value = kNoValue;
};

// Where a phase's tokens sit: prefill/full: positions 0..seq-1 (no past);
// decode: one token at position seq after `seq` past positions.
struct PhaseTokens {
  int64_t past = 0;      // cached positions before the new tokens
  int64_t tokens = 0;    // new tokens this graph processes
  int64_t total() const { return past + tokens; }
};

// The phase's token layout for `dims`; throws Error naming the loader when a
// decode step's position (seq) does not fit `max_positions`.
PhaseTokens phase_tokens(sdk::LmPhase phase, SequenceDims dims, int64_t max_positions, std::string_view loader);

class KvCache {
 public:
  KvCache(GraphBuilder& builder, sdk::LmPhase phase, int64_t batch, int64_t kv_heads, PhaseTokens tokens,
          int64_t head_dim, DType dtype);

  // Layer `layer`'s past K/V: the decode graph's inputs, else none. Call once
  // per layer, in layer order.
  LayerKv past(int64_t layer);
  // Layer `layer`'s present K/V (kept when the phase outputs the cache).
  void keep(int64_t layer, LayerKv present);
  // The kept present K/V as graph outputs; call after the logits' output.
  void output_all();

 private:
  GraphBuilder& builder_;
  sdk::LmPhase phase_;
  Shape past_shape_;
  DType dtype_;
  std::vector<std::pair<int64_t, LayerKv>> present_;
};

// "past_key_values.<layer>.key" and friends.
std::string past_name(int64_t layer, const char* which);
std::string present_name(int64_t layer, const char* which);

}  // namespace meshtest::models
