// Conv2d helper: torchvision names, kaiming-normal initialisation.
#include "models/common/conv2d.h"

#include "core/error.h"
#include "models/common/init.h"

namespace meshtest::models {

ValueId conv2d(LayerContext& ctx, const std::string& prefix, ValueId x, const Conv2dSpec& spec, ConvInit init,
               std::optional<Initializer> bias_init) {
  const Shape& in_shape = ctx.builder.shape(x);
  if (in_shape.size() != 4) throw CompileError("conv2d '" + prefix + "': input must be [N,C,H,W]");
  if (spec.groups <= 0 || in_shape[1] % spec.groups != 0) {
    throw CompileError("conv2d '" + prefix + "': groups must divide the input channels");
  }
  const Shape w_shape{spec.out_channels, in_shape[1] / spec.groups, spec.kernel, spec.kernel};
  const int64_t fan = init == ConvInit::KaimingFanOut ? fan_out(w_shape) : fan_in(w_shape);
  const ValueId w = ctx.weight(join_name(prefix, "weight"), w_shape, init::kaiming_normal(fan));
  std::vector<ValueId> operands{x, w};
  if (bias_init) operands.push_back(ctx.weight(join_name(prefix, "bias"), {spec.out_channels}, *bias_init));
  Attrs attrs{{"stride", std::vector<int64_t>{spec.stride, spec.stride}},
              {"padding", std::vector<int64_t>{spec.padding, spec.padding}},
              {"dilation", std::vector<int64_t>{1, 1}},
              {"groups", spec.groups}};
  return ctx.builder.op(OpKind::Conv2d, std::move(operands), std::move(attrs));
}

}  // namespace meshtest::models
