// LayerContext: what every layer helper needs besides its inputs — the
// GraphBuilder, the model variant (for seeds) and the dtype of weights and
// activations. It creates lazy weights named with PyTorch/HF parameter names,
// each seeded from its own name (see init.h).
#pragma once

#include <string>
#include <string_view>

#include "core/graph_builder.h"

namespace meshtest::models {

// "layer1.0" + "conv1" -> "layer1.0.conv1"; an empty prefix gives the name.
std::string join_name(std::string_view prefix, std::string_view name);

struct LayerContext {
  GraphBuilder& builder;
  std::string variant;       // seeds: hash_seed(variant + "/" + parameter name)
  DType dtype = DType::F32;  // declared dtype of weights and activations
  bool training = false;     // sdk::LoadOptions::training: layers take their model.train() form

  // Lazy weight `name` of `shape`, declared as `dtype`; `init`'s seed is
  // replaced by param_seed(variant, name) (constants keep seed 0).
  ValueId weight(const std::string& name, Shape shape, Initializer init);
  // Scalar constant in the activation dtype (broadcasts against anything).
  ValueId scalar(double value);
};

}  // namespace meshtest::models
