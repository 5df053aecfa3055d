// MLP block helper and activation selection.
#include "models/common/mlp.h"

namespace meshtest::models {

ValueId activation(GraphBuilder& builder, Activation act, ValueId x) {
  switch (act) {
    case Activation::Relu:
      return builder.relu(x);
    case Activation::Gelu:
      return builder.op(OpKind::Gelu, {x}, {{"approximate", std::string("none")}});
    case Activation::GeluTanh:
      return builder.op(OpKind::Gelu, {x}, {{"approximate", std::string("tanh")}});
  }
  return x;
}

ValueId mlp(LayerContext& ctx, const std::string& prefix, ValueId x, const MlpSpec& spec) {
  const int64_t hidden = ctx.builder.shape(x).back();
  ValueId h = linear(ctx, join_name(prefix, spec.up), x, spec.intermediate, spec.init);
  h = activation(ctx.builder, spec.act, h);
  return linear(ctx, join_name(prefix, spec.down), h, hidden, spec.init);
}

}  // namespace meshtest::models
