// Sharding rules of linear and matmul: column- and row-parallel linear
// (Megatron), matmul splits through batch dims and contractions.
#include <algorithm>

#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

std::optional<Local> linear_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Sharding& x = in[0].sharding;
  const Sharding& w = in[1].sharding;
  const std::vector<int>& x_k = x.dims.back();
  if (w.dims[1] != x_k) {
    why = "linear contraction dim split differently on input and weight";
    return std::nullopt;
  }
  const bool partial = !x_k.empty();
  for (size_t d = 0; d + 1 < x.dims.size(); ++d) {
    for (int a : x.dims[d]) {
      if (std::find(w.dims[0].begin(), w.dims[0].end(), a) != w.dims[0].end()) {
        why = "linear output and input batch dims split over one mesh axis";
        return std::nullopt;
      }
    }
  }
  Sharding s = x;
  s.dims.back() = w.dims[0];
  if (partial && !w.dims[0].empty()) {
    why = "linear weight split on both dims";
    return std::nullopt;
  }
  const bool has_bias = in.size() == 3;
  if (has_bias && !partial && in[2].sharding.dims[0].empty() && !w.dims[0].empty()) {  // column-parallel
    if (const std::optional<ValueId> v = cx.split_to(op.inputs[2], in[2], Sharding{{w.dims[0]}})) in[2] = {*v, Sharding{{w.dims[0]}}};
  }
  if (has_bias && in[2].sharding.dims[0] != (partial ? std::vector<int>{} : w.dims[0])) {
    why = "linear bias split differently from its output";
    return std::nullopt;
  }
  if (!partial) {
    std::vector<ValueId> values = {in[0].value, in[1].value};
    if (has_bias) values.push_back(in[2].value);
    return Local{cx.emit(OpKind::Linear, values, op.attrs), s};
  }
  // Row-parallel: partial sums, one all_reduce, then the (replicated) bias.
  Local r = cx.all_reduce(cx.emit(OpKind::Linear, {in[0].value, in[1].value}, op.attrs), x_k, s);
  if (has_bias) r.value = cx.emit(OpKind::Add, {r.value, in[2].value}, {});
  return r;
}

std::optional<Local> matmul_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Shape& as = cx.gtype(op.inputs[0]).shape;
  const Shape& bs = cx.gtype(op.inputs[1]).shape;
  // A contraction dim split on one side only: the other side keeps the
  // matching block of its own (partial sums, all_reduced below).
  for (size_t k = 0; k < 2; ++k) {
    const size_t kd = k == 0 ? as.size() - 1 : bs.size() - 2;
    const size_t od = k == 0 ? bs.size() - 2 : as.size() - 1;
    const auto& other = in[1 - k].sharding.dims[od];
    if (!in[k].sharding.dims[kd].empty() || other.empty()) continue;
    Sharding want = in[k].sharding;
    want.dims[kd] = other;
    if (uses_an_axis_twice(want)) continue;
    if (const std::optional<ValueId> v = cx.split_to(op.inputs[k], in[k], want)) in[k] = {*v, want};
  }
  const Sharding& a = in[0].sharding;
  const Sharding& b = in[1].sharding;
  const size_t out_rank = cx.gtype(op.output).shape.size();
  const std::vector<int>& a_k = a.dims[as.size() - 1];
  const std::vector<int>& b_k = b.dims[bs.size() - 2];
  if (a_k != b_k) {
    why = "matmul contraction dim split differently on its operands";
    return std::nullopt;
  }
  Sharding s = Sharding::replicated(out_rank);
  // Batch dims broadcast like an elementwise op.
  for (size_t j = 0; j + 2 < out_rank; ++j) {
    bool set = false;
    for (size_t k = 0; k < 2; ++k) {
      const Shape& shape = k == 0 ? as : bs;
      const size_t batch_rank = shape.size() - 2;
      if (j + batch_rank < out_rank - 2) continue;
      const size_t d = j + batch_rank - (out_rank - 2);
      if (shape[d] == 1) continue;
      if (!join_split(s.dims[j], set, in[k].sharding.dims[d])) {
        why = "matmul batch dim " + std::to_string(j) + " split differently on its operands";
        return std::nullopt;
      }
    }
  }
  s.dims[out_rank - 2] = a.dims[as.size() - 2];
  s.dims[out_rank - 1] = b.dims[bs.size() - 1];
  Sharding with_contraction = s;  // the partial sums' axes count as used too
  with_contraction.dims.push_back(a_k);
  if (uses_an_axis_twice(with_contraction)) {
    why = "matmul result would be split twice over one mesh axis";
    return std::nullopt;
  }
  const ValueId v = cx.emit(OpKind::Matmul, {in[0].value, in[1].value}, op.attrs);
  if (a_k.empty()) return Local{v, s};
  return cx.all_reduce(v, a_k, s);
}

}  // namespace meshtest::compiler::sharding
