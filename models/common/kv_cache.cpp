// KV cache inputs and outputs of the prefill / decode graphs.
#include "models/common/kv_cache.h"

#include "core/error.h"

namespace meshtest::models {

std::string past_name(int64_t layer, const char* which) {
  return std::string(sdk::kPastKeyValuesPrefix) + std::to_string(layer) + "." + which;
}

std::string present_name(int64_t layer, const char* which) {
  return std::string(sdk::kPresentPrefix) + std::to_string(layer) + "." + which;
}

PhaseTokens phase_tokens(sdk::LmPhase phase, SequenceDims dims, int64_t max_positions, std::string_view loader) {
  if (phase != sdk::LmPhase::Decode) return {0, dims.seq};
  if (dims.seq + 1 > max_positions) {
    throw Error(std::string(loader) + ": a decode step after seq_len " + std::to_string(dims.seq) +
                " positions is at position " + std::to_string(dims.seq) + ", past the model's " +
                std::to_string(max_positions) + " positions");
  }
  return {dims.seq, 1};
}

KvCache::KvCache(GraphBuilder& builder, sdk::LmPhase phase, int64_t batch, int64_t kv_heads, PhaseTokens tokens,
                 int64_t head_dim, DType dtype)
    : builder_(builder), phase_(phase), past_shape_{batch, kv_heads, tokens.past, head_dim}, dtype_(dtype) {}

LayerKv KvCache::past(int64_t layer) {
  if (phase_ != sdk::LmPhase::Decode) return {};
  return {builder_.input(past_name(layer, "key"), dtype_, past_shape_),
          builder_.input(past_name(layer, "value"), dtype_, past_shape_)};
}

void KvCache::keep(int64_t layer, LayerKv present) {
  if (phase_ != sdk::LmPhase::Full) present_.emplace_back(layer, present);
}

void KvCache::output_all() {
  for (const auto& [layer, kv] : present_) {
    builder_.output(present_name(layer, "key"), kv.key);
    builder_.output(present_name(layer, "value"), kv.value);
  }
}

}  // namespace meshtest::models
