// U-Net segmentation models, the architecture and parameter names of the
// widely used milesial/Pytorch-UNet `UNet(n_channels, n_classes, bilinear=True)`:
// DoubleConv (conv3x3 no bias, BN, ReLU, twice) at every level, four
// max-pool downsamplings, four 2x upsamplings each followed by concatenation
// with the encoder's skip tensor ([skip, upsampled] on channels) and a
// DoubleConv, then a 1x1 output conv.
//   unet       base width 64 (64..512, bottleneck 1024/2), 3 -> 2 classes, 256x256
//   unet_tiny  base width 8, 3 -> 2 classes, 64x64
// The upsampling is nearest instead of bilinear (same parameters; the ops
// have no bilinear resize). Convs kaiming_normal fan_in, BN as in
// models/common/batch_norm.h, output conv bias N(0, 0.1).
// Input "image" [B,3,H,W], output "logits" [B,2,H,W]. Options: batch_size.
#include <string>

#include "core/graph_builder.h"
#include "models/common/batch_norm.h"
#include "models/common/conv2d.h"
#include "models/common/init.h"
#include "models/common/load_options.h"
#include "models/common/upsample.h"
#include "models/common/variant_table.h"
#include "models/common/vision_inputs.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "unet/native";
constexpr int64_t kChannels = 3;
constexpr int64_t kClasses = 2;

struct UNetConfig {
  const char* name;
  int64_t base;
  int64_t image;
};

constexpr UNetConfig kConfigs[] = {
    {"unet", 64, 256},
    {"unet_tiny", 8, 64},
};

constexpr LoaderFamily kFamily{kLoader, "unet", "generality", "cv_image_seg", "milesial/Pytorch-UNet"};

// <prefix>.double_conv.{0,1,3,4}: conv, BN, ReLU, conv, BN, ReLU.
ValueId double_conv(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out, int64_t mid) {
  GraphBuilder& b = ctx.builder;
  const std::string p = join_name(prefix, "double_conv");
  x = conv2d(ctx, join_name(p, "0"), x, {mid, 3, 1, 1, 1}, ConvInit::KaimingFanIn);
  x = b.relu(batch_norm(ctx, join_name(p, "1"), x));
  x = conv2d(ctx, join_name(p, "3"), x, {out, 3, 1, 1, 1}, ConvInit::KaimingFanIn);
  return b.relu(batch_norm(ctx, join_name(p, "4"), x));
}

ValueId down(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out) {
  x = ctx.builder.op(OpKind::MaxPool2d, {x},
                     {{"kernel", std::vector<int64_t>{2, 2}},
                      {"stride", std::vector<int64_t>{2, 2}},
                      {"padding", std::vector<int64_t>{0, 0}}});
  return double_conv(ctx, join_name(prefix, "maxpool_conv.1"), x, out, out);
}

ValueId up(LayerContext& ctx, const std::string& prefix, ValueId x, ValueId skip, int64_t out) {
  GraphBuilder& b = ctx.builder;
  x = b.concat({skip, upsample_nearest(b, x, 2)}, 1);
  const int64_t in = b.shape(x)[1];
  return double_conv(ctx, join_name(prefix, "conv"), x, out, in / 2);
}

class UNetLoader final : public TableLoader<UNetConfig> {
 public:
  UNetLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const UNetConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = batch_option(options, kLoader);
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype, options.training};
    const int64_t w = c.base;

    const ValueId image = b.input("image", dtype, {batch, kChannels, c.image, c.image});
    const ValueId x1 = double_conv(ctx, "inc", image, w, w);
    const ValueId x2 = down(ctx, "down1", x1, 2 * w);
    const ValueId x3 = down(ctx, "down2", x2, 4 * w);
    const ValueId x4 = down(ctx, "down3", x3, 8 * w);
    const ValueId x5 = down(ctx, "down4", x4, 8 * w);  // 16w / 2 (bilinear factor)
    ValueId x = up(ctx, "up1", x5, x4, 4 * w);
    x = up(ctx, "up2", x, x3, 2 * w);
    x = up(ctx, "up3", x, x2, w);
    x = up(ctx, "up4", x, x1, w);
    b.output("logits", conv2d(ctx, "outc.conv", x, {kClasses, 1, 1, 0, 1}, ConvInit::KaimingFanIn, init::bias(kHeadBiasStd)));
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const UNetConfig& c = config(variant);
    return image_inputs(c.name, options, kChannels, c.image, kLoader);
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::UNetLoader)
