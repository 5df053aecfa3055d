// Vision Transformers, torchvision VisionTransformer architecture and
// parameter names (conv_proj patchify, class token, learned positions,
// pre-LN encoder with nn.MultiheadAttention in_proj, exact GELU):
//   vit_b_16  patch 16, L=12, H=768,  A=12, MLP 3072, 224x224, 1000 classes
//   vit_b_32  patch 32, L=12, H=768,  A=12, MLP 3072, 224x224, 1000 classes
//   vit_l_16  patch 16, L=24, H=1024, A=16, MLP 4096, 224x224, 1000 classes
//   vit_tiny  patch 16, L=12, H=192,  A=3,  MLP 768,  224x224, 1000 classes
//             (DeiT-Tiny dimensions)
// layer_norm eps 1e-6. Init (torchvision): conv_proj N(0, sqrt(1/fan_in)),
// positions N(0, 0.02), projections xavier-scale N(0, sqrt(2/(in+out))); the
// class token, biases, norms and query/key look trained (models/common/init.h)
// instead of torchvision's zeros and ones. torchvision zeroes the head; here
// it keeps nn.Linear's default so the logits are not constant.
// Input "image" [B,3,224,224], output "logits" [B,1000].
// Options: batch_size (1), num_layers.
#include <cmath>
#include <string>

#include "core/graph_builder.h"
#include "models/common/attention.h"
#include "models/common/init.h"
#include "models/common/layer_norm.h"
#include "models/common/load_options.h"
#include "models/common/mlp.h"
#include "models/common/parallelism.h"
#include "models/common/transformer_layer.h"
#include "models/common/variant_table.h"
#include "models/common/vision_inputs.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "vit/native";
constexpr double kEps = 1e-6;
constexpr int64_t kClasses = 1000;

struct VitConfig {
  const char* name;
  int64_t patch, layers, hidden, heads, mlp, image;
};

constexpr VitConfig kConfigs[] = {
    {"vit_b_16", 16, 12, 768, 12, 3072, 224},
    {"vit_b_32", 32, 12, 768, 12, 3072, 224},
    {"vit_l_16", 16, 24, 1024, 16, 4096, 224},
    {"vit_tiny", 16, 12, 192, 3, 768, 224},
};

constexpr LoaderFamily kFamily{kLoader, "vit", "generality", "cv_image_cls", "torchvision"};

Initializer xavier(int64_t in, int64_t out) { return init::normal(0.0, std::sqrt(2.0 / static_cast<double>(in + out))); }

class VitLoader final : public TableLoader<VitConfig> {
 public:
  VitLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const VitConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = batch_option(options, kLoader);
    const int64_t layers = option_in_range(options.num_layers, c.layers, 1, c.layers, "num_layers", kLoader);
    const int64_t grid = c.image / c.patch;
    const int64_t tokens = grid * grid + 1;
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype};

    ValueId x = b.input("image", dtype, {batch, 3, c.image, c.image});
    const int64_t patch_fan = 3 * c.patch * c.patch;
    const ValueId w = ctx.weight("conv_proj.weight", {c.hidden, 3, c.patch, c.patch},
                                 init::normal(0.0, std::sqrt(1.0 / static_cast<double>(patch_fan))));
    const ValueId bias = ctx.weight("conv_proj.bias", {c.hidden}, init::bias(0.1));
    x = b.op(OpKind::Conv2d, {x, w, bias},
             {{"stride", std::vector<int64_t>{c.patch, c.patch}},
              {"padding", std::vector<int64_t>{0, 0}},
              {"dilation", std::vector<int64_t>{1, 1}},
              {"groups", int64_t{1}}});
    x = b.transpose(b.reshape(x, {batch, c.hidden, grid * grid}), {0, 2, 1});  // [B, patches, H]
    const ValueId class_token = ctx.weight("class_token", {1, 1, c.hidden}, init::bias(0.1));
    const ValueId batch_cls = b.add(class_token, b.constant(0.0, {batch, 1, c.hidden}, dtype));
    x = b.concat({batch_cls, x}, 1);
    x = b.add(x, ctx.weight("encoder.pos_embedding", {1, tokens, c.hidden}, init::normal(0.0, 0.02)));

    AttentionSpec attn;
    attn.num_heads = c.heads;
    attn.layout = QkvLayout::FusedInProj;
    attn.query = "in_proj";
    attn.output = "out_proj";
    attn.init = {xavier(c.hidden, 3 * c.hidden), init::bias(0.02)};
    attn.output_weight = xavier(c.hidden, c.hidden);
    MlpSpec ffn;
    ffn.intermediate = c.mlp;
    ffn.act = Activation::Gelu;
    ffn.up = "0";
    ffn.down = "3";
    ffn.init = {xavier(c.hidden, c.mlp), init::normal(0.0, 1e-6)};
    const PreNormLayerSpec layer{{NormKind::LayerNorm, kEps}, "ln_1", "ln_2",
                                 [&](LayerContext& lc, const std::string& p, ValueId h) {
                                   return multi_head_self_attention(lc, join_name(p, "self_attention"), h, kNoValue,
                                                                    attn);
                                 },
                                 [&](LayerContext& lc, const std::string& p, ValueId h) {
                                   return mlp(lc, join_name(p, "mlp"), h, ffn);
                                 }};
    for (int64_t l = 0; l < layers; ++l) {
      x = pre_norm_layer(ctx, "encoder.layers.encoder_layer_" + std::to_string(l), x, layer);
    }
    x = layer_norm(ctx, "encoder.ln", x, kEps);
    x = b.reshape(b.slice(x, 1, 0, 1), {batch, c.hidden});  // the class token
    b.output("logits", linear(ctx, "heads.head", x, kClasses, torch_default_linear_init(c.hidden)));
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const VitConfig& c = config(variant);
    return image_inputs(c.name, options, 3, c.image, kLoader);
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    return heads_mesh(config(variant).heads, num_devices, kLoader);
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::VitLoader)
