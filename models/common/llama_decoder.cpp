// LLaMA-style decoder graph, inputs and shard rules.
#include "models/common/llama_decoder.h"

#include "core/graph_builder.h"
#include "models/common/attention.h"
#include "models/common/init.h"
#include "models/common/linear.h"
#include "models/common/safetensors.h"

namespace meshtest::models {

DecoderConfig gqa_decoder_config(int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads, int64_t vocab,
                                 bool tied_embeddings, RopeConfig rope) {
  DecoderConfig d;
  d.layers = layers;
  d.hidden = hidden;
  d.heads = heads;
  d.kv_heads = kv_heads;
  d.head_dim = hidden / heads;
  d.vocab = vocab;
  d.tied_embeddings = tied_embeddings;
  rope.head_dim = d.head_dim;
  d.rope = rope;
  return d;
}

sdk::Model build_llama_style_decoder(std::string_view variant, const DecoderConfig& config, DType dtype,
                                     sdk::LmPhase phase, PhaseTokens tokens, int64_t batch, int64_t layers,
                                     const SubBlock& feed_forward) {
  GraphBuilder b{std::string(variant)};
  LayerContext ctx{b, std::string(variant), dtype};
  const ValueId input_ids = b.input("input_ids", DType::I64, {batch, tokens.tokens});
  const ValueId mask = b.input("attention_mask", dtype, {1, 1, tokens.tokens, tokens.total()});
  const ValueId cos = b.input("rope_cos", dtype, {tokens.tokens, config.head_dim});
  const ValueId sin = b.input("rope_sin", dtype, {tokens.tokens, config.head_dim});
  KvCache cache(b, phase, batch, config.kv_heads, tokens, config.head_dim, dtype);
  const Initializer w_init = init::normal(0.0, config.init_std);
  const ValueId embed = ctx.weight("model.embed_tokens.weight", {config.vocab, config.hidden}, w_init);
  ValueId x = b.op(OpKind::Embedding, {input_ids, embed});

  AttentionSpec attn;
  attn.num_heads = config.heads;
  attn.num_kv_heads = config.kv_heads;
  attn.score_std = kLlmAttentionScoreStd;  // logits in the tens (models/common/init.h)
  attn.head_dim = config.head_dim;
  attn.query = "q_proj";
  attn.key = "k_proj";
  attn.value = "v_proj";
  attn.output = "o_proj";
  attn.init = {w_init, std::nullopt};
  attn.rope_cos = cos;
  attn.rope_sin = sin;
  int64_t l = 0;
  const PreNormLayerSpec layer{{NormKind::RmsNorm, config.rms_eps}, "input_layernorm", "post_attention_layernorm",
                               [&](LayerContext& c, const std::string& p, ValueId h) {
                                 LayerKv present;
                                 const ValueId out = multi_head_self_attention(c, join_name(p, "self_attn"), h, mask,
                                                                               attn, cache.past(l), &present);
                                 cache.keep(l, present);
                                 return out;
                               },
                               feed_forward};
  for (; l < layers; ++l) x = pre_norm_layer(ctx, "model.layers." + std::to_string(l), x, layer);
  x = norm(ctx, "model.norm", x, layer.norm);
  const ValueId logits = config.tied_embeddings ? b.linear(x, embed)
                                                : linear(ctx, "lm_head", x, config.vocab, {w_init, std::nullopt});
  b.output("logits", logits);
  cache.output_all();
  return finish_model(b, variant);
}

sdk::Inputs llama_style_inputs(std::string_view variant, const DecoderConfig& config, DType dtype, sdk::LmPhase phase,
                               SequenceDims dims) {
  // Token ids avoid the special tokens at the top of the Llama 3 vocabulary.
  sdk::Inputs inputs = phase_inputs(variant, phase, dims, 0, config.vocab * 31 / 32, dtype);
  const bool decode = phase == sdk::LmPhase::Decode;  // one token at position seq
  RopeTables tables = rope_tables(config.rope, decode ? 1 : dims.seq, dtype, decode ? dims.seq : 0);
  inputs["rope_cos"] = std::move(tables.cos);
  inputs["rope_sin"] = std::move(tables.sin);
  return inputs;
}

sdk::ShardSpec llama_style_shard_spec(const Graph& graph, std::vector<ShardRule> extra) {
  std::vector<ShardRule> rules = std::move(extra);
  for (const char* name : {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight"}) {
    rules.push_back({name, column_parallel_weight()});
  }
  rules.push_back({"self_attn.o_proj.weight", row_parallel_weight()});
  rules.push_back({"model.embed_tokens.weight", column_parallel_weight()});
  rules.push_back({"lm_head.weight", column_parallel_weight()});
  return shard_by_rules(graph, rules);
}

}  // namespace meshtest::models
