// A pre-norm transformer layer, the shape GPT-2, LLaMA, Mixtral, ViT and
// Whisper share: x += attention(norm1(x)); x += feed_forward(norm2(x)).
// The family supplies its norm kind and names and its two sub-blocks.
#pragma once

#include <functional>
#include <string>

#include "models/common/layer_context.h"

namespace meshtest::models {

enum class NormKind { LayerNorm, RmsNorm };

struct NormSpec {
  NormKind kind = NormKind::LayerNorm;
  double eps = 1e-5;
};

// <prefix>.weight (+ .bias for LayerNorm) over the last dim.
ValueId norm(LayerContext& ctx, const std::string& prefix, ValueId x, const NormSpec& spec);

// A sub-block: (context, layer prefix, normalized input) -> residual update.
using SubBlock = std::function<ValueId(LayerContext&, const std::string&, ValueId)>;

struct PreNormLayerSpec {
  NormSpec norm;
  std::string norm1;  // relative to the layer prefix, e.g. "ln_1"
  std::string norm2;
  SubBlock attention;
  SubBlock feed_forward;
};

ValueId pre_norm_layer(LayerContext& ctx, const std::string& prefix, ValueId x, const PreNormLayerSpec& spec);

}  // namespace meshtest::models
