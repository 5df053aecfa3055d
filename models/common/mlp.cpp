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
  const auto project = spec.conv1d ? conv1d_linear : linear;
  ValueId h = project(ctx, join_name(prefix, spec.up), x, spec.intermediate, spec.init);
  h = activation(ctx.builder, spec.act, h);
  LinearInit down_init = spec.init;
  if (spec.down_weight) down_init.weight = *spec.down_weight;
  return project(ctx, join_name(prefix, spec.down), h, hidden, down_init);
}

ValueId gated_mlp(LayerContext& ctx, const std::string& prefix, ValueId x, const GatedMlpSpec& spec) {
  GraphBuilder& b = ctx.builder;
  const int64_t hidden = b.shape(x).back();
  const LinearInit init{spec.init, std::nullopt};
  const ValueId gate = b.op(OpKind::Silu, {linear(ctx, join_name(prefix, spec.gate), x, spec.intermediate, init)});
  const ValueId up = linear(ctx, join_name(prefix, spec.up), x, spec.intermediate, init);
  return linear(ctx, join_name(prefix, spec.down), b.mul(gate, up), hidden, init);
}

}  // namespace meshtest::models
