// RMSNorm over the last dim (LLaMA / Mistral): y = x * rsqrt(mean(x^2) + eps)
// * weight, with the HF parameter name <prefix>.weight (init::norm_gain).
#pragma once

#include <string>

#include "models/common/layer_context.h"

namespace meshtest::models {

ValueId rms_norm(LayerContext& ctx, const std::string& prefix, ValueId x, double eps);

}  // namespace meshtest::models
