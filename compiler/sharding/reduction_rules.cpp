// Sharding rules of reductions: kept dims keep their split; a sum over a
// split dim is a partial sum finished by one all_reduce.
#include <algorithm>

#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

std::optional<Local> reduce_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Local& x = in[0];
  const size_t out_rank = cx.gtype(op.output).shape.size();
  const int64_t rank = static_cast<int64_t>(x.sharding.dims.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  std::vector<int> split_axes;
  for (int64_t a : op.attrs.get_ints("axes")) {
    const auto d = static_cast<size_t>(normalize_axis(a, rank));
    reduced[d] = true;
    split_axes.insert(split_axes.end(), x.sharding.dims[d].begin(), x.sharding.dims[d].end());
  }
  if (!split_axes.empty() && op.kind != OpKind::ReduceSum) {
    why = std::string(op_name(op.kind)) + " over a split dim";
    return std::nullopt;
  }
  const bool keepdim = op.attrs.get_int("keepdim", 0) != 0;
  Sharding s = Sharding::replicated(out_rank);
  size_t j = 0;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) s.dims[j++] = x.sharding.dims[d];
    else if (keepdim) ++j;
  }
  const ValueId v = cx.emit(op.kind, {x.value}, op.attrs);
  if (split_axes.empty()) return Local{v, s};
  std::sort(split_axes.begin(), split_axes.end());
  return cx.all_reduce(v, split_axes, s);
}

}  // namespace meshtest::compiler::sharding
