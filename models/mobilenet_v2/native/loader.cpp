// MobileNetV2 image classifiers, torchvision architecture and parameter names
// (inverted residual blocks: 1x1 expand, 3x3 depthwise, 1x1 linear
// projection; ReLU6 as relu(x) - relu(x - 6)):
//   mobilenet_v2       width 1.0,  224x224, 1000 classes
//   mobilenet_v2_tiny  width 0.25,  64x64,    10 classes
// Channels follow torchvision's _make_divisible(c * width, 8); the last conv
// has 1280 channels (times width when width > 1).
// Init keeps activations O(1): convs kaiming_normal fan_in (torchvision uses
// fan_out, which shrinks depthwise outputs by 3x per block), BN as in
// models/common/batch_norm.h with the projection BN's gamma U(0.3, 0.6) so
// the residual sums do not grow, classifier N(0, sqrt(2/in)) like the ResNet
// fc here (torchvision's N(0, 0.01) leaves logits std ~0.15, too small for
// the comparators' allclose short-cut to mean anything).
// Input "image" [B,3,H,W], output "logits" [B,classes]. Options: batch_size.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/graph_builder.h"
#include "models/common/batch_norm.h"
#include "models/common/conv2d.h"
#include "models/common/init.h"
#include "models/common/linear.h"
#include "models/common/load_options.h"
#include "models/common/variant_table.h"
#include "models/common/vision_inputs.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "mobilenet_v2/native";

struct MobileNetConfig {
  const char* name;
  double width;
  int64_t image;
  int64_t classes;
};

constexpr MobileNetConfig kConfigs[] = {
    {"mobilenet_v2", 1.0, 224, 1000},
    {"mobilenet_v2_tiny", 0.25, 64, 10},
};

// t (expansion), c (channels), n (blocks), s (first stride)
struct Stage {
  int64_t t, c, n, s;
};
constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

constexpr LoaderFamily kFamily{kLoader, "mobilenet_v2", "generality", "cv_image_cls", "torchvision"};

int64_t make_divisible(double v, int64_t divisor = 8) {
  int64_t new_v = std::max(divisor, static_cast<int64_t>(v + static_cast<double>(divisor) / 2) / divisor * divisor);
  if (static_cast<double>(new_v) < 0.9 * v) new_v += divisor;
  return new_v;
}

ValueId relu6(LayerContext& ctx, ValueId x) {
  GraphBuilder& b = ctx.builder;
  return b.sub(b.relu(x), b.relu(b.sub(x, ctx.scalar(6.0))));
}

// Conv2dNormActivation: <prefix>.0 conv (no bias), <prefix>.1 BN, ReLU6.
ValueId conv_bn_relu6(LayerContext& ctx, const std::string& prefix, ValueId x, const Conv2dSpec& spec) {
  x = conv2d(ctx, join_name(prefix, "0"), x, spec, ConvInit::KaimingFanIn);
  return relu6(ctx, batch_norm(ctx, join_name(prefix, "1"), x));
}

ValueId inverted_residual(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out, int64_t stride,
                          int64_t expand) {
  const int64_t in = ctx.builder.shape(x)[1];
  const int64_t hidden = in * expand;
  int index = 0;
  ValueId y = x;
  auto next = [&] { return join_name(prefix, "conv." + std::to_string(index++)); };
  if (expand != 1) y = conv_bn_relu6(ctx, next(), y, {hidden, 1, 1, 0, 1});
  y = conv_bn_relu6(ctx, next(), y, {hidden, 3, stride, 1, hidden});
  y = conv2d(ctx, next(), y, {out, 1, 1, 0, 1}, ConvInit::KaimingFanIn);
  BatchNormInit project_bn;
  project_bn.weight = init::uniform(0.3, 0.6);
  y = batch_norm(ctx, next(), y, project_bn);
  return (stride == 1 && in == out) ? ctx.builder.add(x, y) : y;
}

class MobileNetV2Loader final : public TableLoader<MobileNetConfig> {
 public:
  MobileNetV2Loader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const MobileNetConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = batch_option(options, kLoader);
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype, options.training};

    ValueId x = b.input("image", dtype, {batch, 3, c.image, c.image});
    x = conv_bn_relu6(ctx, "features.0", x, {make_divisible(32 * c.width), 3, 2, 1, 1});
    int feature = 1;
    for (const Stage& s : kStages) {
      const int64_t out = make_divisible(static_cast<double>(s.c) * c.width);
      for (int64_t i = 0; i < s.n; ++i) {
        x = inverted_residual(ctx, "features." + std::to_string(feature++), x, out, i == 0 ? s.s : 1, s.t);
      }
    }
    const int64_t last = make_divisible(1280 * std::max(1.0, c.width));
    x = conv_bn_relu6(ctx, "features." + std::to_string(feature), x, {last, 1, 1, 0, 1});
    x = b.reshape(b.op(OpKind::GlobalAvgPool2d, {x}), {batch, last});
    b.output("logits", linear(ctx, "classifier.1", x, c.classes,
                                      {init::normal(0.0, std::sqrt(2.0 / static_cast<double>(last))), init::bias(kHeadBiasStd)}));
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const MobileNetConfig& c = config(variant);
    return image_inputs(c.name, options, 3, c.image, kLoader);
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::MobileNetV2Loader)
