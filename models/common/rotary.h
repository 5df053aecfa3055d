// Rotary position embedding (RoPE, HF "rotate_half" convention): the cos/sin
// tables a loader passes as inputs (what HF's rotary_emb computes from
// position_ids, with the optional Llama 3 frequency scaling) and their
// in-graph application to query/key heads.
#pragma once

#include <optional>

#include "core/tensor.h"
#include "models/common/layer_context.h"

namespace meshtest::models {

// Llama 3 "rope_type: llama3" frequency scaling.
struct Llama3RopeScaling {
  double factor = 8.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  double original_max_position = 8192.0;
};

struct RopeConfig {
  int64_t head_dim = 0;
  double theta = 10000.0;
  std::optional<Llama3RopeScaling> scaling;
};

// cos and sin of position * inv_freq for positions first..first+seq-1, each
// [seq, head_dim] (the frequencies repeated for both halves), in `dtype`.
struct RopeTables {
  Tensor cos;
  Tensor sin;
};
RopeTables rope_tables(const RopeConfig& config, int64_t seq, DType dtype, int64_t first = 0);

// x [B, heads, S, head_dim] * cos + rotate_half(x) * sin; cos/sin [S, head_dim].
ValueId apply_rotary(GraphBuilder& b, ValueId x, ValueId cos, ValueId sin);

}  // namespace meshtest::models
