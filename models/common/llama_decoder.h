// The LLaMA-style decoder both llama and mixtral build (HF LlamaForCausalLM /
// MixtralForCausalLM names): token embedding, layers of RMSNorm -> GQA
// attention with RoPE (q/k/v/o_proj, no biases) and RMSNorm -> feed-forward
// (the family's: SwiGLU MLP or a mixture of experts), final norm, lm_head
// (or tied to embed_tokens).
//
// Inputs: "input_ids" i64 [B,S], "attention_mask" [1,1,S,S] causal (see
// causal_lm.h), "rope_cos" / "rope_sin" [S, head_dim] (rotary.h).
// Output "logits" [B, S, vocab].
#pragma once

#include <string_view>

#include "discovery/loader_sdk.h"
#include "models/common/causal_lm.h"
#include "models/common/parallelism.h"
#include "models/common/rotary.h"
#include "models/common/transformer_layer.h"

namespace meshtest::models {

struct DecoderConfig {
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t vocab = 0;
  bool tied_embeddings = false;
  double rms_eps = 1e-5;
  RopeConfig rope;
  double init_std = 0.02;  // HF initializer_range
};

// `feed_forward` gets the layer prefix (model.layers.N) and the normed input.
sdk::Model build_llama_style_decoder(std::string_view variant, const DecoderConfig& config, DType dtype,
                                     SequenceDims dims, int64_t layers, const SubBlock& feed_forward);

sdk::Inputs llama_style_inputs(std::string_view variant, const DecoderConfig& config, DType dtype, SequenceDims dims);

// Column-parallel q/k/v, row-parallel o_proj, vocabulary-split embeddings
// and lm_head; `extra` rules (the feed-forward's) are tried first.
sdk::ShardSpec llama_style_shard_spec(const Graph& graph, std::vector<ShardRule> extra);

}  // namespace meshtest::models
