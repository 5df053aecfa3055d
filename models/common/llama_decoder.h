// The LLaMA-style decoder both llama and mixtral build (HF LlamaForCausalLM /
// MixtralForCausalLM names): token embedding, layers of RMSNorm -> GQA
// attention with RoPE (q/k/v/o_proj, no biases) and RMSNorm -> feed-forward
// (the family's: SwiGLU MLP or a mixture of experts), final norm, lm_head
// (or tied to embed_tokens).
//
// Inputs: "input_ids" i64 [B,S], "attention_mask" [1,1,S,S] causal (see
// causal_lm.h), "rope_cos" / "rope_sin" [S, head_dim] (rotary.h).
// Output "logits" [B, S, vocab]. Prefill adds the KV cache outputs; decode
// takes input_ids [B,1], attention_mask [1,1,1,S+1], rope tables of position
// S [1, head_dim] and the past K/V, and outputs logits [B,1,vocab] and the
// grown cache (kv_cache.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "discovery/loader_sdk.h"
#include "models/common/causal_lm.h"
#include "models/common/kv_cache.h"
#include "models/common/load_options.h"
#include "models/common/parallelism.h"
#include "models/common/rotary.h"
#include "models/common/transformer_layer.h"
#include "models/common/variant_table.h"

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

// A grouped-query decoder: head_dim = hidden / heads, `rope.head_dim` is
// filled in from it.
DecoderConfig gqa_decoder_config(int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads, int64_t vocab,
                                 bool tied_embeddings, RopeConfig rope);

// `feed_forward` gets the layer prefix (model.layers.N) and the normed input.
sdk::Model build_llama_style_decoder(std::string_view variant, const DecoderConfig& config, DType dtype,
                                     sdk::LmPhase phase, PhaseTokens tokens, int64_t batch, int64_t layers,
                                     const SubBlock& feed_forward);

sdk::Inputs llama_style_inputs(std::string_view variant, const DecoderConfig& config, DType dtype, sdk::LmPhase phase,
                               SequenceDims dims);

// Column-parallel q/k/v, row-parallel o_proj, vocabulary-split embeddings
// and lm_head; `extra` rules (the feed-forward's) are tried first.
sdk::ShardSpec llama_style_shard_spec(const Graph& graph, std::vector<ShardRule> extra);

// Base of the llama-style loaders (llama, mixtral). A family supplies its
// variant table, a variant's DecoderConfig, its feed-forward block and that
// block's shard rules; loading, inputs, the sequence and num_layers options,
// the mesh (split over the kv heads) and the shard spec are shared.
template <class Config>
class LlamaStyleLoader : public TableLoader<Config> {
 public:
  struct SequenceLimits {
    int64_t default_len;
    int64_t max_positions;
  };

  LlamaStyleLoader(std::span<const Config> configs, const LoaderFamily& family, SequenceLimits limits)
      : TableLoader<Config>(configs, family), limits_(limits) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const Config& c = this->config(variant);
    const DecoderConfig d = decoder(c);
    const int64_t layers =
        option_in_range(options.num_layers, d.layers, 1, d.layers, "num_layers", this->loader_name());
    const SequenceDims sd = dims(options);
    const PhaseTokens tokens = phase_tokens(options.phase, sd, limits_.max_positions, this->loader_name());
    return build_llama_style_decoder(c.name, d, model_dtype(options, this->loader_name()), options.phase, tokens,
                                     sd.batch, layers, [&](LayerContext& ctx, const std::string& prefix, ValueId h) {
                                       return feed_forward(c, d, ctx, prefix, h);
                                     });
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const Config& c = this->config(variant);
    return llama_style_inputs(c.name, decoder(c), model_dtype(options, this->loader_name()), options.phase,
                              dims(options));
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    return heads_mesh(decoder(this->config(variant)).kv_heads, num_devices, this->loader_name());
  }

  std::optional<sdk::ShardSpec> shard_spec(std::string_view variant, const sdk::Model& model) const override {
    this->config(variant);
    return llama_style_shard_spec(model.graph, feed_forward_shard_rules());
  }

 protected:
  virtual DecoderConfig decoder(const Config& c) const = 0;
  // The layer's feed-forward on the normed input `h`; `prefix` is model.layers.N.
  virtual ValueId feed_forward(const Config& c, const DecoderConfig& d, LayerContext& ctx, const std::string& prefix,
                               ValueId h) const = 0;
  // Shard rules of the feed-forward's weights (tried before the attention's).
  virtual std::vector<ShardRule> feed_forward_shard_rules() const = 0;

 private:
  SequenceDims dims(const sdk::LoadOptions& options) const {
    return sequence_dims(options, limits_.default_len, limits_.max_positions, this->loader_name());
  }

  SequenceLimits limits_;
};

}  // namespace meshtest::models
