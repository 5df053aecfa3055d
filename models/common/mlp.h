// Transformer feed-forward (MLP) block: up projection, activation, down
// projection. Names default to Hugging Face BERT's <prefix>.intermediate.dense
// and <prefix>.output.dense (BERT's prefix is the layer: encoder.layer.N).
#pragma once

#include <string>

#include "models/common/linear.h"

namespace meshtest::models {

enum class Activation { Relu, Gelu /* exact (erf) */, GeluTanh };

ValueId activation(GraphBuilder& builder, Activation act, ValueId x);

struct MlpSpec {
  int64_t intermediate = 0;
  Activation act = Activation::Gelu;
  std::string up = "intermediate.dense";
  std::string down = "output.dense";
  LinearInit init;  // for both projections
};

// x: [..., H] -> [..., H]
ValueId mlp(LayerContext& ctx, const std::string& prefix, ValueId x, const MlpSpec& spec);

}  // namespace meshtest::models
