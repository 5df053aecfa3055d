// Sparse mixture-of-experts feed-forward (HF MixtralSparseMoeBlock names):
// router <prefix>.gate.weight [E, H] (no bias), softmax over experts, top-k
// selection with the kept weights renormalised to sum to 1, and SwiGLU experts
// <prefix>.experts.<e>.{w1,w3,w2}. Computed densely: every expert runs on
// every token and the unselected ones get weight 0 (exact, not efficient).
#pragma once

#include <string>

#include "models/common/mlp.h"

namespace meshtest::models {

struct MoeSpec {
  int64_t num_experts = 8;
  int64_t top_k = 2;
  int64_t intermediate = 0;
  Initializer init;  // router and expert weights
};

ValueId sparse_moe(LayerContext& ctx, const std::string& prefix, ValueId x, const MoeSpec& spec);

}  // namespace meshtest::models
