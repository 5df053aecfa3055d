// Pre-norm transformer layer helper.
#include "models/common/transformer_layer.h"

#include "models/common/layer_norm.h"
#include "models/common/rms_norm.h"

namespace meshtest::models {

ValueId norm(LayerContext& ctx, const std::string& prefix, ValueId x, const NormSpec& spec) {
  return spec.kind == NormKind::RmsNorm ? rms_norm(ctx, prefix, x, spec.eps) : layer_norm(ctx, prefix, x, spec.eps);
}

ValueId pre_norm_layer(LayerContext& ctx, const std::string& prefix, ValueId x, const PreNormLayerSpec& spec) {
  GraphBuilder& b = ctx.builder;
  x = b.add(x, spec.attention(ctx, prefix, norm(ctx, join_name(prefix, spec.norm1), x, spec.norm)));
  return b.add(x, spec.feed_forward(ctx, prefix, norm(ctx, join_name(prefix, spec.norm2), x, spec.norm)));
}

}  // namespace meshtest::models
