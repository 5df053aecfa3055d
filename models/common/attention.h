// Multi-head self-attention (BERT style, no dropout): query/key/value
// projections, scaled dot-product attention with an optional additive mask,
// and the output projection. Parameter names default to Hugging Face BERT's
// (<prefix>.self.query.weight, ..., <prefix>.output.dense.bias).
#pragma once

#include <string>

#include "models/common/linear.h"

namespace meshtest::models {

struct AttentionSpec {
  int64_t num_heads = 1;
  std::string query = "self.query";
  std::string key = "self.key";
  std::string value = "self.value";
  std::string output = "output.dense";
  LinearInit init;  // for all four projections
};

// x: [B, S, H]. additive_mask: kNoValue, or broadcastable to [B, heads, S, S]
// (e.g. [B, 1, 1, S] with 0 for kept and a large negative value for masked
// keys). Returns the output projection [B, S, H] (before residual and norm).
ValueId multi_head_self_attention(LayerContext& ctx, const std::string& prefix, ValueId x, ValueId additive_mask,
                                  const AttentionSpec& spec);

}  // namespace meshtest::models
