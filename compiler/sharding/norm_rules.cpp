// Sharding rules of layer_norm and rms_norm: any split but of the normalized
// (last) dim, with whole parameters.
#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

std::optional<Local> norm_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  for (size_t k = 1; k < in.size(); ++k) {
    if (!in[k].sharding.is_replicated()) {
      why = "norm parameters are split";
      return std::nullopt;
    }
  }
  if (!in[0].sharding.dims.back().empty()) {
    why = "norm over a split dim";
    return std::nullopt;
  }
  return Local{cx.emit(op.kind, values_of(in), op.attrs), in[0].sharding};
}

}  // namespace meshtest::compiler::sharding
