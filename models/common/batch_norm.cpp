// Batch norm helper: inference form (running statistics) or training form
// (batch statistics, running statistics updated as extra outputs).
#include "models/common/batch_norm.h"

#include "core/error.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

namespace {

// Per-channel mean over N, H, W of x [N,C,H,W] as a [C] value: a sum times
// 1/n (a sum, not reduce_mean, so a batch split meets in one all_reduce).
ValueId channel_mean(LayerContext& ctx, ValueId x, double inv_count) {
  GraphBuilder& b = ctx.builder;
  const ValueId sum = b.op(OpKind::ReduceSum, {x}, {{"axes", std::vector<int64_t>{0, 2, 3}}, {"keepdim", int64_t{0}}});
  return b.mul(sum, ctx.scalar(inv_count));
}

// (1 - momentum) * running + momentum * factor * batch, PyTorch's update.
ValueId momentum_update(LayerContext& ctx, ValueId running, ValueId batch, double factor) {
  GraphBuilder& b = ctx.builder;
  return b.add(b.mul(running, ctx.scalar(1.0 - kBatchNormMomentum)),
               b.mul(batch, ctx.scalar(kBatchNormMomentum * factor)));
}

}  // namespace

ValueId batch_norm(LayerContext& ctx, const std::string& prefix, ValueId x, const BatchNormInit& init) {
  GraphBuilder& b = ctx.builder;
  const Shape in_shape = b.shape(x);
  if (in_shape.size() != 4) throw CompileError("batch_norm '" + prefix + "': input must be [N,C,H,W]");
  const int64_t c = in_shape[1];
  const std::string mean_name = join_name(prefix, "running_mean");
  const std::string var_name = join_name(prefix, "running_var");
  const ValueId gamma = ctx.weight(join_name(prefix, "weight"), {c}, init.weight);
  const ValueId beta = ctx.weight(join_name(prefix, "bias"), {c}, init.bias);
  const ValueId running_mean = ctx.weight(mean_name, {c}, init.running_mean);
  const ValueId running_var = ctx.weight(var_name, {c}, init.running_var);
  const Attrs attrs{{"eps", init.eps}};
  if (!ctx.training) return b.op(OpKind::BatchNorm, {x, gamma, beta, running_mean, running_var}, attrs);

  const int64_t count = in_shape[0] * in_shape[2] * in_shape[3];
  if (count < 2) {
    throw CompileError("batch_norm '" + prefix + "': training needs more than one value per channel (N*H*W = " +
                       std::to_string(count) + ")");
  }
  const double inv_count = 1.0 / static_cast<double>(count);
  const ValueId mean = channel_mean(ctx, x, inv_count);
  const ValueId centered = b.sub(x, b.reshape(mean, {c, 1, 1}));
  const ValueId var = channel_mean(ctx, b.mul(centered, centered), inv_count);  // biased: normalises
  const ValueId y = b.op(OpKind::BatchNorm, {x, gamma, beta, mean, var}, attrs);
  const double unbiased = static_cast<double>(count) / static_cast<double>(count - 1);
  b.output(sdk::kUpdatedBufferPrefix + mean_name, momentum_update(ctx, running_mean, mean, 1.0));
  b.output(sdk::kUpdatedBufferPrefix + var_name, momentum_update(ctx, running_var, var, unbiased));
  return y;
}

}  // namespace meshtest::models
