// Multi-head self-attention (no dropout) with the projection layouts of the
// zoo's families, grouped-query attention and optional rotary embeddings:
//   Separate     <prefix>.<query|key|value>.weight/bias [out, H] (HF BERT,
//                LLaMA, Whisper); the default names are HF BERT's
//   FusedInProj  <prefix>.in_proj_weight [3H, H], in_proj_bias (torch
//                nn.MultiheadAttention, torchvision ViT)
//   FusedConv1D  <prefix>.<query>.weight [H, 3H] in HF Conv1D layout
//                (GPT-2 c_attn); the output projection is Conv1D too
// Scores are divided by sqrt(head_dim) and the additive mask is added before
// the softmax (HF order).
#pragma once

#include <optional>
#include <string>

#include "models/common/init.h"
#include "models/common/kv_cache.h"
#include "models/common/linear.h"

namespace meshtest::models {

enum class QkvLayout { Separate, FusedInProj, FusedConv1D };

struct AttentionSpec {
  int64_t num_heads = 1;
  int64_t num_kv_heads = 0;  // grouped-query attention; 0: num_heads
  int64_t head_dim = 0;      // 0: hidden / num_heads
  QkvLayout layout = QkvLayout::Separate;
  std::string query = "self.query";  // fused layouts: the fused projection's name
  std::string key = "self.key";
  std::string value = "self.value";
  std::string output = "output.dense";
  LinearInit init;                              // v (and output unless below); q/k weights unless score_std is 0
  // The spread of attention scores the query/key weights give unit-variance
  // inputs (init::query_key); fused layouts draw the whole fused weight so.
  double score_std = kAttentionScoreStd;
  std::optional<Initializer> output_weight;     // e.g. GPT-2's scaled c_proj init
  bool qkv_bias = true;                         // with init.bias set
  bool key_bias = true;                         // Whisper's k_proj has none
  bool output_bias = true;
  ValueId rope_cos = kNoValue;  // [S, head_dim] each: apply RoPE to q and k
  ValueId rope_sin = kNoValue;
};

// x: [B, S, H]. additive_mask: kNoValue, or broadcastable to [B, heads, S, T]
// with a size-1 head dim (e.g. [B,1,1,S] padding or [1,1,S,S] causal), T =
// P + S with `past` K/V of P positions ([B, kv_heads, P, head_dim], after
// RoPE; none: P = 0), which the new keys and values extend. `present`, when
// given, receives the keys and values attended over ([B, kv_heads, T, head_dim]).
// Returns the output projection [B, S, H] (before residual and norm).
ValueId multi_head_self_attention(LayerContext& ctx, const std::string& prefix, ValueId x, ValueId additive_mask,
                                  const AttentionSpec& spec, const LayerKv& past = {}, LayerKv* present = nullptr);

}  // namespace meshtest::models
