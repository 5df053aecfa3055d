// Dense-evaluated top-k mixture of experts (see moe.h).
#include "models/common/moe.h"

namespace meshtest::models {

ValueId sparse_moe(LayerContext& ctx, const std::string& prefix, ValueId x, const MoeSpec& spec) {
  GraphBuilder& b = ctx.builder;
  const int64_t last = static_cast<int64_t>(b.shape(x).size()) - 1;
  const ValueId router_logits = linear(ctx, join_name(prefix, "gate"), x, spec.num_experts, {spec.init, std::nullopt});
  const ValueId probs = b.softmax(router_logits, -1);
  const ValueId selected = b.op(OpKind::TopkMask, {probs}, {{"k", spec.top_k}, {"axis", last}});
  ValueId weights = b.mul(probs, selected);
  weights = b.div(weights, b.op(OpKind::ReduceSum, {weights}, {{"axes", std::vector<int64_t>{last}}, {"keepdim", int64_t{1}}}));

  GatedMlpSpec expert;
  expert.intermediate = spec.intermediate;
  expert.gate = "w1";
  expert.up = "w3";
  expert.down = "w2";
  expert.init = spec.init;
  ValueId out = kNoValue;
  for (int64_t e = 0; e < spec.num_experts; ++e) {
    const ValueId y = gated_mlp(ctx, join_name(prefix, "experts." + std::to_string(e)), x, expert);
    const ValueId weighted = b.mul(y, b.slice(weights, last, e, e + 1));
    out = out == kNoValue ? weighted : b.add(out, weighted);
  }
  return out;
}

}  // namespace meshtest::models
