// Layer norm over the last dim with PyTorch/HF names <prefix>.weight (gamma,
// initialised as init::norm_gain) and <prefix>.bias (beta, init::norm_shift).
#pragma once

#include <string>

#include "models/common/layer_context.h"

namespace meshtest::models {

ValueId layer_norm(LayerContext& ctx, const std::string& prefix, ValueId x, double eps);

}  // namespace meshtest::models
