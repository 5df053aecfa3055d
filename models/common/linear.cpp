// Linear layer helper (PyTorch layout and names).
#include "models/common/linear.h"

#include "core/error.h"
#include "models/common/init.h"

namespace meshtest::models {

LinearInit torch_default_linear_init(int64_t in_features) {
  const Initializer u = init::torch_linear_default(in_features);
  return {u, u};
}

ValueId linear(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out_features, const LinearInit& init) {
  const Shape& in_shape = ctx.builder.shape(x);
  if (in_shape.empty()) throw CompileError("linear '" + prefix + "': input must have rank >= 1");
  const int64_t in_features = in_shape.back();
  const ValueId w = ctx.weight(join_name(prefix, "weight"), {out_features, in_features}, init.weight);
  if (!init.bias) return ctx.builder.linear(x, w);
  const ValueId b = ctx.weight(join_name(prefix, "bias"), {out_features}, *init.bias);
  return ctx.builder.linear(x, w, b);
}

ValueId conv1d_linear(LayerContext& ctx, const std::string& prefix, ValueId x, int64_t out_features,
                      const LinearInit& init) {
  const Shape& in_shape = ctx.builder.shape(x);
  if (in_shape.empty()) throw CompileError("conv1d '" + prefix + "': input must have rank >= 1");
  const ValueId w = ctx.weight(join_name(prefix, "weight"), {in_shape.back(), out_features}, init.weight);
  const ValueId y = ctx.builder.matmul(x, w);
  if (!init.bias) return y;
  return ctx.builder.add(y, ctx.weight(join_name(prefix, "bias"), {out_features}, *init.bias));
}

}  // namespace meshtest::models
