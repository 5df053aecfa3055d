// Whisper speech encoders, Hugging Face WhisperEncoder architecture and
// parameter names (model.encoder.*): a conv1d front end (conv1 k3, conv2 k3
// stride 2, GELU), learned-shape positions (embed_positions [1500, d]), pre-LN
// transformer layers (k_proj without bias, exact GELU) and a final LayerNorm.
//   whisper_tiny   d=384, L=4,  heads 6,  ffn 1536
//   whisper_base   d=512, L=6,  heads 8,  ffn 2048
//   whisper_small  d=768, L=12, heads 12, ffn 3072
// 80 mel bins, 3000 frames -> 1500 positions, eps 1e-5, HF init N(0, 0.02)
// (embed_positions too: HF fills it with sinusoids, any fixed table will do),
// with trained-looking biases, norm parameters and query/key weights
// (models/common/init.h).
// The conv1d weights keep HF's [out, in, 3] shape and are reshaped in-graph to
// [out, in, 1, 3] for a conv2d over [B, 80, 1, frames].
// Input "input_features" [B, 80, 2*S] (log-mel, N(0, 0.5)); output
// "last_hidden_state" [B, S, d]. Options: batch_size (1), seq_len (S, the
// encoder positions: 1500, at most 1500), num_layers.
#include <string>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "models/common/attention.h"
#include "models/common/init.h"
#include "models/common/layer_norm.h"
#include "models/common/load_options.h"
#include "models/common/mlp.h"
#include "models/common/parallelism.h"
#include "models/common/transformer_layer.h"
#include "models/common/variant_table.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "whisper/audio_asr/native";
constexpr int64_t kMels = 80;
constexpr int64_t kMaxPositions = 1500;
constexpr double kEps = 1e-5;
constexpr double kInitStd = 0.02;

struct WhisperConfig {
  const char* name;
  int64_t hidden, layers, heads, ffn;
};

constexpr WhisperConfig kConfigs[] = {
    {"whisper_tiny", 384, 4, 6, 1536},
    {"whisper_base", 512, 6, 8, 2048},
    {"whisper_small", 768, 12, 12, 3072},
};

constexpr LoaderFamily kFamily{kLoader, "whisper", "generality", "audio_asr", "huggingface", "last_hidden_state"};

// Conv1d over time with HF's weight shape [out, in, 3], GELU after.
ValueId conv1d_gelu(LayerContext& ctx, const std::string& name, ValueId x, int64_t out, int64_t stride) {
  GraphBuilder& b = ctx.builder;
  const int64_t in = b.shape(x)[1];
  const ValueId w = ctx.weight(join_name(name, "weight"), {out, in, 3}, init::normal(0.0, kInitStd));
  const ValueId bias = ctx.weight(join_name(name, "bias"), {out}, init::bias(kInitStd));
  x = b.op(OpKind::Conv2d, {x, b.reshape(w, {out, in, 1, 3}), bias},
           {{"stride", std::vector<int64_t>{1, stride}},
            {"padding", std::vector<int64_t>{0, 1}},
            {"dilation", std::vector<int64_t>{1, 1}},
            {"groups", int64_t{1}}});
  return activation(b, Activation::Gelu, x);
}

class WhisperLoader final : public TableLoader<WhisperConfig> {
 public:
  WhisperLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const WhisperConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const SequenceDims dims = sequence_dims(options, kMaxPositions, kMaxPositions, kLoader);
    const int64_t layers = option_in_range(options.num_layers, c.layers, 1, c.layers, "num_layers", kLoader);
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype};

    ValueId x = b.input("input_features", dtype, {dims.batch, kMels, 2 * dims.seq});
    x = b.reshape(x, {dims.batch, kMels, 1, 2 * dims.seq});
    x = conv1d_gelu(ctx, "model.encoder.conv1", x, c.hidden, 1);
    x = conv1d_gelu(ctx, "model.encoder.conv2", x, c.hidden, 2);  // [B, d, 1, S]
    x = b.transpose(b.reshape(x, {dims.batch, c.hidden, dims.seq}), {0, 2, 1});
    const ValueId positions =
        ctx.weight("model.encoder.embed_positions.weight", {kMaxPositions, c.hidden}, init::normal(0.0, kInitStd));
    x = b.add(x, b.slice(positions, 0, 0, dims.seq));

    AttentionSpec attn;
    attn.num_heads = c.heads;
    attn.query = "q_proj";
    attn.key = "k_proj";
    attn.value = "v_proj";
    attn.output = "out_proj";
    attn.init = {init::normal(0.0, kInitStd), init::bias(kInitStd)};
    attn.key_bias = false;
    MlpSpec ffn;
    ffn.intermediate = c.ffn;
    ffn.act = Activation::Gelu;
    ffn.up = "fc1";
    ffn.down = "fc2";
    ffn.init = attn.init;
    const PreNormLayerSpec layer{{NormKind::LayerNorm, kEps}, "self_attn_layer_norm", "final_layer_norm",
                                 [&](LayerContext& lc, const std::string& p, ValueId h) {
                                   return multi_head_self_attention(lc, join_name(p, "self_attn"), h, kNoValue, attn);
                                 },
                                 [&](LayerContext& lc, const std::string& p, ValueId h) { return mlp(lc, p, h, ffn); }};
    for (int64_t l = 0; l < layers; ++l) x = pre_norm_layer(ctx, "model.encoder.layers." + std::to_string(l), x, layer);
    b.output("last_hidden_state", layer_norm(ctx, "model.encoder.layer_norm", x, kEps));
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const WhisperConfig& c = config(variant);
    const SequenceDims dims = sequence_dims(options, kMaxPositions, kMaxPositions, kLoader);
    sdk::Inputs inputs;
    inputs["input_features"] = float_input(
        random_normal({dims.batch, kMels, 2 * dims.seq}, input_seed(c.name, "input_features"), 0.0f, 0.5f),
        model_dtype(options, kLoader));
    return inputs;
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    return heads_mesh(config(variant).heads, num_devices, kLoader);
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::WhisperLoader)
