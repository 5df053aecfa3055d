// Transformer feed-forward (MLP) block: up projection, activation, down
// projection. Names default to Hugging Face BERT's <prefix>.intermediate.dense
// and <prefix>.output.dense (BERT's prefix is the layer: encoder.layer.N).
#pragma once

#include <optional>
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
  std::optional<Initializer> down_weight;  // e.g. GPT-2's scaled c_proj init
  bool conv1d = false;                     // HF Conv1D layout (GPT-2 c_fc / c_proj)
};

// x: [..., H] -> [..., H]
ValueId mlp(LayerContext& ctx, const std::string& prefix, ValueId x, const MlpSpec& spec);

// Gated (SwiGLU) feed-forward: down(silu(gate(x)) * up(x)), no biases.
// Names default to HF LLaMA's; Mixtral experts use w1 (gate), w3 (up), w2 (down).
struct GatedMlpSpec {
  int64_t intermediate = 0;
  std::string gate = "gate_proj";
  std::string up = "up_proj";
  std::string down = "down_proj";
  Initializer init;  // all three weights
};

ValueId gated_mlp(LayerContext& ctx, const std::string& prefix, ValueId x, const GatedMlpSpec& spec);

}  // namespace meshtest::models
