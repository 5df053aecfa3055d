// Batch norm helper (inference form, running statistics as weights).
#include "models/common/batch_norm.h"

#include "core/error.h"

namespace meshtest::models {

ValueId batch_norm(LayerContext& ctx, const std::string& prefix, ValueId x, const BatchNormInit& init) {
  const Shape& in_shape = ctx.builder.shape(x);
  if (in_shape.size() != 4) throw CompileError("batch_norm '" + prefix + "': input must be [N,C,H,W]");
  const int64_t c = in_shape[1];
  const ValueId gamma = ctx.weight(join_name(prefix, "weight"), {c}, init.weight);
  const ValueId beta = ctx.weight(join_name(prefix, "bias"), {c}, init.bias);
  const ValueId mean = ctx.weight(join_name(prefix, "running_mean"), {c}, init.running_mean);
  const ValueId var = ctx.weight(join_name(prefix, "running_var"), {c}, init.running_var);
  return ctx.builder.op(OpKind::BatchNorm, {x, gamma, beta, mean, var}, {{"eps", init.eps}});
}

}  // namespace meshtest::models
