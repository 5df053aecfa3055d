// GPT-2 causal language models, Hugging Face GPT2LMHeadModel architecture and
// parameter names (pre-LN, fused c_attn in Conv1D layout, gelu_new, learned
// positions, lm_head tied to transformer.wte):
//   gpt2          L=12, H=768,  A=12 (124M)
//   gpt2_medium   L=24, H=1024, A=16 (355M)
//   gpt2_tiny     L=2,  H=128,  A=2
// vocab 50257, 1024 positions, layer_norm eps 1e-5, HF init: N(0, 0.02),
// residual projections (attn.c_proj, mlp.c_proj) N(0, 0.02/sqrt(2L)), with
// trained-looking biases, norm parameters and query/key weights (models/common/init.h).
// Inputs: see models/common/causal_lm.h. Output "logits" [B,S,50257].
// Options: batch_size (1), seq_len (128, at most 1024; decode: 1023), num_layers,
// phase (prefill / decode with a KV cache: models/common/kv_cache.h; decode's
// position embedding is row seq_len of wpe).
#include <cmath>
#include <string>

#include "core/graph_builder.h"
#include "models/common/attention.h"
#include "models/common/causal_lm.h"
#include "models/common/init.h"
#include "models/common/kv_cache.h"
#include "models/common/layer_norm.h"
#include "models/common/load_options.h"
#include "models/common/mlp.h"
#include "models/common/parallelism.h"
#include "models/common/transformer_layer.h"
#include "models/common/variant_table.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "gpt2/causal_lm/native";
constexpr int64_t kVocab = 50257;
constexpr int64_t kMaxPositions = 1024;
constexpr double kEps = 1e-5;
constexpr double kInitStd = 0.02;
constexpr int64_t kDefaultSeqLen = 128;

struct Gpt2Config {
  const char* name;
  int64_t layers;
  int64_t hidden;
  int64_t heads;
};

constexpr Gpt2Config kConfigs[] = {
    {"gpt2", 12, 768, 12},
    {"gpt2_medium", 24, 1024, 16},
    {"gpt2_tiny", 2, 128, 2},
};

constexpr LoaderFamily kFamily{kLoader, "gpt2", "priority", "nlp_causal_lm", "huggingface"};

class Gpt2Loader final : public TableLoader<Gpt2Config> {
 public:
  Gpt2Loader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const Gpt2Config& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const SequenceDims dims = sequence_dims(options, kDefaultSeqLen, kMaxPositions, kLoader);
    const int64_t layers = option_in_range(options.num_layers, c.layers, 1, c.layers, "num_layers", kLoader);
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype};

    const PhaseTokens tokens = phase_tokens(options.phase, dims, kMaxPositions, kLoader);
    const ValueId input_ids = b.input("input_ids", DType::I64, {dims.batch, tokens.tokens});
    const ValueId mask = b.input("attention_mask", dtype, {1, 1, tokens.tokens, tokens.total()});
    KvCache cache(b, options.phase, dims.batch, c.heads, tokens, c.hidden / c.heads, dtype);
    const ValueId wte = ctx.weight("transformer.wte.weight", {kVocab, c.hidden}, init::normal(0.0, kInitStd));
    const ValueId wpe =
        ctx.weight("transformer.wpe.weight", {kMaxPositions, c.hidden}, init::normal(0.0, kInitStd));
    ValueId x = b.add(b.op(OpKind::Embedding, {input_ids, wte}), b.slice(wpe, 0, tokens.past, tokens.total()));

    const LinearInit hf_init{init::normal(0.0, kInitStd), init::bias(kInitStd)};
    const Initializer residual_init = init::normal(0.0, kInitStd / std::sqrt(2.0 * static_cast<double>(c.layers)));
    AttentionSpec attn;
    attn.num_heads = c.heads;
    attn.layout = QkvLayout::FusedConv1D;
    attn.score_std = kLlmAttentionScoreStd;  // logits in the tens (models/common/init.h)
    attn.query = "c_attn";
    attn.output = "c_proj";
    attn.init = hf_init;
    attn.output_weight = residual_init;
    MlpSpec ffn;
    ffn.intermediate = 4 * c.hidden;
    ffn.act = Activation::GeluTanh;
    ffn.up = "c_fc";
    ffn.down = "c_proj";
    ffn.init = hf_init;
    ffn.down_weight = residual_init;
    ffn.conv1d = true;
    int64_t l = 0;
    PreNormLayerSpec layer{{NormKind::LayerNorm, kEps}, "ln_1", "ln_2",
                           [&](LayerContext& lc, const std::string& p, ValueId h) {
                             LayerKv present;
                             const ValueId out =
                                 multi_head_self_attention(lc, join_name(p, "attn"), h, mask, attn, cache.past(l), &present);
                             cache.keep(l, present);
                             return out;
                           },
                           [&](LayerContext& lc, const std::string& p, ValueId h) {
                             return mlp(lc, join_name(p, "mlp"), h, ffn);
                           }};
    for (; l < layers; ++l) x = pre_norm_layer(ctx, "transformer.h." + std::to_string(l), x, layer);
    x = layer_norm(ctx, "transformer.ln_f", x, kEps);
    b.output("logits", b.linear(x, wte));  // lm_head tied to wte
    cache.output_all();
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const Gpt2Config& c = config(variant);
    return phase_inputs(c.name, options.phase, sequence_dims(options, kDefaultSeqLen, kMaxPositions, kLoader), 0,
                        kVocab, model_dtype(options, kLoader));
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    return heads_mesh(config(variant).heads, num_devices, kLoader);
  }

  // Megatron-style: c_attn / c_fc column-parallel, the c_proj's row-parallel,
  // the (tied) embedding split over the vocabulary; norms and wpe replicated.
  std::optional<sdk::ShardSpec> shard_spec(std::string_view variant, const sdk::Model& model) const override {
    config(variant);
    return shard_by_rules(model.graph, {{"attn.c_attn.weight", conv1d_column_parallel_weight()},
                                        {"attn.c_attn.bias", column_parallel_bias()},
                                        {"attn.c_proj.weight", conv1d_row_parallel_weight()},
                                        {"mlp.c_fc.weight", conv1d_column_parallel_weight()},
                                        {"mlp.c_fc.bias", column_parallel_bias()},
                                        {"mlp.c_proj.weight", conv1d_row_parallel_weight()},
                                        {"transformer.wte.weight", column_parallel_weight()}});
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::Gpt2Loader)
