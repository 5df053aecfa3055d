// ResNet image classifiers, torchvision architecture and parameter names
// (v1.5: the stride sits on the 3x3 conv of a bottleneck):
//   resnet18     BasicBlock [2,2,2,2],  widths 64..512, 1000 classes, 224x224
//   resnet34     BasicBlock [3,4,6,3],  widths 64..512, 1000 classes, 224x224
//   resnet50     Bottleneck [3,4,6,3],  widths 64..512, 1000 classes, 224x224
//   resnet101    Bottleneck [3,4,23,3], widths 64..512, 1000 classes, 224x224
//   resnet152    Bottleneck [3,8,36,3], widths 64..512, 1000 classes, 224x224
//   resnet_tiny  BasicBlock [1,1,1,1], widths 16..128,   10 classes,  64x64
// Input "image" [B,3,H,W], output "logits" [B,classes]; batch_norm in
// the run mode's form (models/common/batch_norm.h). Initialisation keeps activations O(1) through 50 layers:
//   convs     kaiming_normal fan_out / ReLU gain (torchvision), except the
//             3-channel stem which uses fan_in (fan_out would shrink the
//             signal by sqrt(147/3136) before the first block)
//   bn        gamma U(0.5, 1.5), beta N(0, 0.2), running_mean N(0, 0.1), running_var U(0.5, 1.5);
//             the last BN of each residual branch has gamma U(0.1, 0.2) so the
//             residual sums do not grow block after block
//   fc        weight N(0, sqrt(2/in)), bias N(0, 0.1) (logits std ~1-2)
#include <array>
#include <cmath>
#include <string>

#include "core/graph_builder.h"
#include "discovery/loader_sdk.h"
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

constexpr const char* kLoader = "resnet/native";

struct ResNetConfig {
  const char* name;
  bool bottleneck;
  std::array<int, 4> blocks;
  std::array<int64_t, 4> widths;
  int64_t num_classes;
  int64_t image_size;
};

constexpr ResNetConfig kConfigs[] = {
    {"resnet18", false, {2, 2, 2, 2}, {64, 128, 256, 512}, 1000, 224},
    {"resnet34", false, {3, 4, 6, 3}, {64, 128, 256, 512}, 1000, 224},
    {"resnet50", true, {3, 4, 6, 3}, {64, 128, 256, 512}, 1000, 224},
    {"resnet101", true, {3, 4, 23, 3}, {64, 128, 256, 512}, 1000, 224},
    {"resnet152", true, {3, 8, 36, 3}, {64, 128, 256, 512}, 1000, 224},
    {"resnet_tiny", false, {1, 1, 1, 1}, {16, 32, 64, 128}, 10, 64},
};

constexpr LoaderFamily kFamily{kLoader, "resnet", "red", "cv_image_cls", "torchvision"};

BatchNormInit residual_tail_bn() {
  BatchNormInit init;
  init.weight = init::uniform(0.1, 0.2);
  return init;
}

ValueId conv_bn(LayerContext& ctx, const std::string& prefix, const std::string& conv, const std::string& bn, ValueId x,
                const Conv2dSpec& spec, const BatchNormInit& bn_init = {}) {
  x = conv2d(ctx, join_name(prefix, conv), x, spec);
  return batch_norm(ctx, join_name(prefix, bn), x, bn_init);
}

// downsample.0 (conv1x1, stride) + downsample.1 (bn), or the identity.
ValueId shortcut(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out_channels, int64_t stride) {
  if (stride == 1 && ctx.builder.shape(x)[1] == out_channels) return x;
  return conv_bn(ctx, prefix, "downsample.0", "downsample.1", x, {out_channels, 1, stride, 0, 1});
}

ValueId basic_block(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t planes, int64_t stride) {
  GraphBuilder& b = ctx.builder;
  const ValueId identity = shortcut(ctx, prefix, x, planes, stride);
  ValueId y = b.relu(conv_bn(ctx, prefix, "conv1", "bn1", x, {planes, 3, stride, 1, 1}));
  y = conv_bn(ctx, prefix, "conv2", "bn2", y, {planes, 3, 1, 1, 1}, residual_tail_bn());
  return b.relu(b.add(y, identity));
}

ValueId bottleneck(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t planes, int64_t stride) {
  GraphBuilder& b = ctx.builder;
  constexpr int64_t kExpansion = 4;
  const ValueId identity = shortcut(ctx, prefix, x, planes * kExpansion, stride);
  ValueId y = b.relu(conv_bn(ctx, prefix, "conv1", "bn1", x, {planes, 1, 1, 0, 1}));
  y = b.relu(conv_bn(ctx, prefix, "conv2", "bn2", y, {planes, 3, stride, 1, 1}));
  y = conv_bn(ctx, prefix, "conv3", "bn3", y, {planes * kExpansion, 1, 1, 0, 1}, residual_tail_bn());
  return b.relu(b.add(y, identity));
}

class ResNetLoader final : public TableLoader<ResNetConfig> {
 public:
  ResNetLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const ResNetConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = batch_option(options, kLoader);
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype, options.training};

    ValueId x = b.input("image", dtype, {batch, 3, c.image_size, c.image_size});
    x = conv2d(ctx, "conv1", x, {c.widths[0], 7, 2, 3, 1}, ConvInit::KaimingFanIn);
    x = b.relu(batch_norm(ctx, "bn1", x));
    x = b.op(OpKind::MaxPool2d, {x},
             {{"kernel", std::vector<int64_t>{3, 3}},
              {"stride", std::vector<int64_t>{2, 2}},
              {"padding", std::vector<int64_t>{1, 1}}});
    for (size_t stage = 0; stage < 4; ++stage) {
      for (int block = 0; block < c.blocks[stage]; ++block) {
        const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
        const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
        x = c.bottleneck ? bottleneck(ctx, prefix, x, c.widths[stage], stride)
                              : basic_block(ctx, prefix, x, c.widths[stage], stride);
      }
    }
    x = b.op(OpKind::GlobalAvgPool2d, {x});
    const int64_t features = b.shape(x)[1];
    x = b.reshape(x, {batch, features});
    const LinearInit fc_init{init::normal(0.0, std::sqrt(2.0 / static_cast<double>(features))), init::bias(kHeadBiasStd)};
    x = linear(ctx, "fc", x, c.num_classes, fc_init);
    b.output("logits", x);
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const ResNetConfig& c = config(variant);
    return image_inputs(c.name, options, 3, c.image_size, kLoader);
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::ResNetLoader)
