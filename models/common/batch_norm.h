// Inference batch norm with torchvision parameter names: <prefix>.weight,
// <prefix>.bias, <prefix>.running_mean, <prefix>.running_var (all [C]).
// num_batches_tracked is a training-only counter and is not created.
#pragma once

#include <string>

#include "models/common/init.h"
#include "models/common/layer_context.h"

namespace meshtest::models {

// Defaults look like a trained network's parameters and statistics rather
// than a fresh one's (weight 1, bias 0, mean 0, var 1 would make batch_norm an
// identity and hide kernel bugs).
struct BatchNormInit {
  Initializer weight = init::norm_gain();
  Initializer bias = init::norm_shift();
  Initializer running_mean = init::normal(0.0, 0.1);
  Initializer running_var = init::uniform(0.5, 1.5);
  double eps = 1e-5;
};

ValueId batch_norm(LayerContext& ctx, const std::string& prefix, ValueId x, const BatchNormInit& init = {});

}  // namespace meshtest::models
