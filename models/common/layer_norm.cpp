// Layer norm helper.
#include "models/common/layer_norm.h"

#include "core/error.h"
#include "models/common/init.h"

namespace meshtest::models {

ValueId layer_norm(LayerContext& ctx, const std::string& prefix, ValueId x, double eps) {
  const Shape& in_shape = ctx.builder.shape(x);
  if (in_shape.empty()) throw CompileError("layer_norm '" + prefix + "': input must have rank >= 1");
  const int64_t d = in_shape.back();
  const ValueId gamma = ctx.weight(join_name(prefix, "weight"), {d}, init::norm_gain());
  const ValueId beta = ctx.weight(join_name(prefix, "bias"), {d}, init::norm_shift());
  return ctx.builder.op(OpKind::LayerNorm, {x, gamma, beta}, {{"eps", eps}});
}

}  // namespace meshtest::models
