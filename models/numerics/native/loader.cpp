// Numerics stress block (variant "norm_softmax_block"): the normalizations
// and the softmax of a transformer or CNN layer, each fed the activations
// that make their numerics matter, as real models produce them and the zoo's
// freshly initialised ones do not:
//   layer_norm  "hidden": [1,128,256], every fourth token with a large
//               common offset (the "massive activations" of a few tokens of
//               a trained LLM: mean 4096, spread about 32), so a variance
//               taken as E[x^2] - E[x]^2 cancels;
//   rms_norm    "quiet": [1,128,256] activations of magnitude 3e-3 (tokens
//               whose embeddings are near zero), mean square 9e-6 against
//               eps 1e-6, so eps moves the scale by 5%;
//   softmax     "logits": [1,4,128,128] attention logits of spread 40,
//               reaching 150 to 200 (an LLM without QK-norm), past f32's
//               exp range (88) unless the row max is subtracted first;
//   layer norm, written out: the same "hidden" through the primitive ops an
//               ONNX export before opset 17 spells a LayerNorm with
//               (mean, sub, square, mean, add eps, rsqrt, mul, mul gamma, add
//               beta), which the compiler's fuse pass folds into one
//               layer_norm at -O1 (gamma and beta must land in their places);
//   batch_norm  "features": [1,16,16,16] channels of spread 1e-3 with
//               running variances near 1e-6 (the low-gain channels of a
//               trained CNN), so eps 1e-5 is most of the denominator;
//   gelu        the tanh form GPT-2 spells in primitive ops, which the fuse
//               pass folds into one gelu (approximate: tanh) at -O1, fed
//               "preactivation": [1,128,256] in GELU's negative tail (about
//               -5 to -3, a unit that is mostly off), where the tanh and erf
//               forms differ by 10 to 45%;
//   conv2d      a 3x3 convolution of the normalized features whose kernel is
//               stored channel-last, [KH,KW,Cin,Cout] as TensorFlow and JAX
//               keep it, and transposed in-graph to [Cout,Cin,KH,KW]: a
//               3-cycle permutation the compiler's const-eval pass folds
//               into the weight at -O1 (Cin = Cout, so a wrong permutation
//               keeps the shape and only the values tell).
// Every input is made of bf16 values, so a bf16 device holds exactly what
// the golden computes on. Inference only: its purpose is the device kernels
// and compiler passes under these inputs (docs/explanation/checks.md).
#include <cmath>
#include <string>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"
#include "models/common/batch_norm.h"
#include "models/common/init.h"
#include "models/common/layer_context.h"
#include "models/common/layer_norm.h"
#include "models/common/load_options.h"
#include "models/common/rms_norm.h"
#include "models/common/safetensors.h"
#include "models/common/variant_table.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "numerics/native";
constexpr int64_t kTokens = 128;
constexpr int64_t kHidden = 256;
constexpr int64_t kHeads = 4;
constexpr int64_t kChannels = 16;
constexpr int64_t kSpatial = 16;
constexpr float kOffset = 4096.0f;      // the offset tokens' common value
constexpr float kOffsetSpread = 32.0f;  // their spread around it: one bf16 step there
constexpr float kQuiet = 3e-3f;
constexpr float kLogitSpread = 40.0f;
constexpr float kFeatureSpread = 1e-3f;

struct StressConfig {
  const char* name;
};

constexpr StressConfig kConfigs[] = {{"norm_softmax_block"}};
constexpr LoaderFamily kFamily{kLoader, "numerics", "generality", "numerics_stress", "meshtest", "layer_norm"};

// (x - mean(x)) * rsqrt(mean((x - mean(x))^2) + eps) * gamma + beta over the
// last axis, in primitive ops.
ValueId layer_norm_primitives(LayerContext& ctx, const std::string& prefix, ValueId x, double eps) {
  GraphBuilder& b = ctx.builder;
  const int64_t d = b.shape(x).back();
  const Attrs last{{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}};
  const ValueId centered = b.sub(x, b.op(OpKind::ReduceMean, {x}, last));
  const ValueId variance = b.op(OpKind::ReduceMean, {b.mul(centered, centered)}, last);
  const ValueId normalized = b.mul(centered, b.op(OpKind::Rsqrt, {b.add(variance, ctx.scalar(eps))}));
  const ValueId gamma = ctx.weight(prefix + ".weight", {d}, init::norm_gain());
  const ValueId beta = ctx.weight(prefix + ".bias", {d}, init::norm_shift());
  return b.add(b.mul(normalized, gamma), beta);
}

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in primitive ops.
ValueId gelu_tanh_primitives(LayerContext& ctx, ValueId x) {
  GraphBuilder& b = ctx.builder;
  const ValueId cube = b.mul(b.mul(x, x), x);
  const ValueId inner = b.add(x, b.mul(cube, ctx.scalar(0.044715)));
  const ValueId t = b.op(OpKind::Tanh, {b.mul(inner, ctx.scalar(std::sqrt(2.0 / M_PI)))});
  return b.mul(b.mul(x, ctx.scalar(0.5)), b.add(t, ctx.scalar(1.0)));
}

class NumericsLoader final : public TableLoader<StressConfig> {
 public:
  NumericsLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    config(variant);
    const DType dtype = model_dtype(options, kLoader);
    GraphBuilder b("numerics_" + std::string(variant));
    LayerContext ctx{b, std::string(variant), dtype};
    const ValueId hidden = b.input("hidden", dtype, {1, kTokens, kHidden});
    const ValueId quiet = b.input("quiet", dtype, {1, kTokens, kHidden});
    const ValueId logits = b.input("logits", dtype, {1, kHeads, kTokens, kTokens});
    const ValueId features = b.input("features", dtype, {1, kChannels, kSpatial, kSpatial});
    const ValueId preactivation = b.input("preactivation", dtype, {1, kTokens, kHidden});
    b.output("layer_norm", layer_norm(ctx, "layer_norm", hidden, 1e-5));
    b.output("layer_norm_primitives", layer_norm_primitives(ctx, "layer_norm_primitives", hidden, 1e-5));
    b.output("rms_norm", rms_norm(ctx, "rms_norm", quiet, 1e-6));
    b.output("softmax", b.softmax(logits));
    b.output("gelu", gelu_tanh_primitives(ctx, preactivation));
    BatchNormInit bn;
    bn.running_mean = init::normal(0.0, kFeatureSpread * 0.1);
    bn.running_var = init::uniform(0.5e-6, 1.5e-6);
    const ValueId normalized = batch_norm(ctx, "batch_norm", features, bn);
    b.output("batch_norm", normalized);
    const ValueId kernel_hwio =
        ctx.weight("conv.kernel", {3, 3, kChannels, kChannels}, init::kaiming_normal(9 * kChannels));
    const Attrs same{{"stride", std::vector<int64_t>{1, 1}},
                     {"padding", std::vector<int64_t>{1, 1}},
                     {"dilation", std::vector<int64_t>{1, 1}},
                     {"groups", int64_t{1}}};
    b.output("conv2d", b.op(OpKind::Conv2d, {normalized, b.transpose(kernel_hwio, {3, 2, 0, 1})}, same));
    return finish_model(b, variant);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    config(variant);
    const DType dtype = model_dtype(options, kLoader);
    Tensor hidden = random_normal({1, kTokens, kHidden}, input_seed(variant, "hidden"));
    float* h = hidden.data<float>();
    for (int64_t t = 0; t < kTokens; t += 4) {
      for (int64_t d = 0; d < kHidden; ++d) h[t * kHidden + d] = kOffset + kOffsetSpread * h[t * kHidden + d];
    }
    // bf16 values, held as f32 (or as the model's dtype).
    auto exact = [dtype](const Tensor& t) { return float_input(t.to(DType::BF16).to(DType::F32), dtype); };
    sdk::Inputs inputs;
    inputs["hidden"] = exact(hidden);
    inputs["quiet"] = exact(random_normal({1, kTokens, kHidden}, input_seed(variant, "quiet"), 0.0f, kQuiet));
    inputs["logits"] =
        exact(random_normal({1, kHeads, kTokens, kTokens}, input_seed(variant, "logits"), 0.0f, kLogitSpread));
    inputs["preactivation"] =
        exact(random_normal({1, kTokens, kHidden}, input_seed(variant, "preactivation"), -4.0f, 0.3f));
    inputs["features"] =
        exact(random_normal({1, kChannels, kSpatial, kSpatial}, input_seed(variant, "features"), 0.0f, kFeatureSpread));
    return inputs;
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::NumericsLoader)
