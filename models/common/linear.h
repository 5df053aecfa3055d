// Linear layer with PyTorch parameter names: <prefix>.weight [out, in] and
// <prefix>.bias [out]; computes x @ weight^T + bias over the last dim.
#pragma once

#include <optional>
#include <string>

#include "models/common/layer_context.h"

namespace meshtest::models {

struct LinearInit {
  Initializer weight;
  std::optional<Initializer> bias;  // nullopt: no bias parameter
};

// nn.Linear's default: weight and bias uniform(-1/sqrt(in), 1/sqrt(in)).
LinearInit torch_default_linear_init(int64_t in_features);

ValueId linear(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out_features, const LinearInit& init);

// Hugging Face Conv1D (GPT-2): the same map with the weight stored transposed,
// <prefix>.weight [in, out]; computes x @ weight + bias.
ValueId conv1d_linear(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out_features,
                      const LinearInit& init);

}  // namespace meshtest::models
