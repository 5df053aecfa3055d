// 2-D convolution with torchvision parameter names: <prefix>.weight
// [out, in/groups, k, k] and, when asked for, <prefix>.bias [out].
#pragma once

#include <optional>
#include <string>

#include "models/common/layer_context.h"

namespace meshtest::models {

struct Conv2dSpec {
  int64_t out_channels = 0;
  int64_t kernel = 1;  // square kernel
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t groups = 1;
};

enum class ConvInit {
  KaimingFanOut,  // torchvision ResNet: kaiming_normal_(mode="fan_out", nonlinearity="relu")
  KaimingFanIn,   // kaiming_normal_(mode="fan_in", nonlinearity="relu"): keeps the forward scale
};

ValueId conv2d(LayerContext& ctx, const std::string& prefix, ValueId x, const Conv2dSpec& spec,
               ConvInit init = ConvInit::KaimingFanOut, std::optional<Initializer> bias_init = std::nullopt);

}  // namespace meshtest::models
