// Sharding rules of embedding lookups and their gradient: vocabulary-parallel
// embedding, partial-sum embedding_backward.
#include <algorithm>

#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

// A vocabulary split (Megatron's vocab-parallel embedding): each chip looks
// up the ids in its rows (embedding_shard, zeros for other chips' rows,
// its first row from a small replicated table of starts cut by
// shard_slice), and one all_reduce over the split's axes adds the parts.
std::optional<Local> embedding_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const Sharding& table = in[1].sharding;
  Sharding s = in[0].sharding;
  s.dims.push_back(table.dims[1]);
  const std::vector<int>& vocab_axes = table.dims[0];
  if (vocab_axes.empty()) return Local{cx.emit(op.kind, {in[0].value, in[1].value}, op.attrs), s};
  Sharding with_vocab = s;
  with_vocab.dims.back().insert(with_vocab.dims.back().end(), vocab_axes.begin(), vocab_axes.end());
  if (uses_an_axis_twice(with_vocab)) {
    why = "embedding table split over the vocabulary on axes its ids are split over";
    return std::nullopt;
  }
  const int64_t group = axes_size(cx.mesh(), vocab_axes);
  const int64_t rows = cx.local_type(in[1].value).shape[0];  // this chip's rows
  std::vector<int64_t> starts(static_cast<size_t>(group));
  for (int64_t r = 0; r < group; ++r) starts[static_cast<size_t>(r)] = r * rows;
  const ValueId all_starts = cx.add_constant_param("shard/vocab_starts/op" + std::to_string(cx.local_graph().ops.size()),
                                                Tensor::from_i64({group}, starts));
  const ValueId start = cx.collective(OpKind::ShardSlice, all_starts, vocab_axes, {{"dim", int64_t{0}}});
  return cx.all_reduce(cx.emit(OpKind::EmbeddingShard, {in[0].value, in[1].value, start}, {}), vocab_axes, s);
}

// embedding_backward(ids[...], dy[..., D]) -> [V, D]: ids and dy's leading
// dims split alike give partial tables summed by all_reduce; a split of D
// (tensor parallel) stays on the table's D.
std::optional<Local> embedding_backward_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const auto& ids = in[0].sharding.dims;
  const auto& dy = in[1].sharding.dims;
  std::vector<int> partial;
  for (size_t d = 0; d < ids.size(); ++d) {
    if (ids[d] != dy[d]) {
      why = "embedding_backward ids and gradient split differently";
      return std::nullopt;
    }
    partial.insert(partial.end(), ids[d].begin(), ids[d].end());
  }
  Sharding s = Sharding::replicated(2);
  s.dims[1] = dy.back();
  const ValueId v = cx.emit(op.kind, values_of(in), op.attrs);
  if (partial.empty()) return Local{v, s};
  std::sort(partial.begin(), partial.end());
  return cx.all_reduce(v, partial, s);
}

}  // namespace meshtest::compiler::sharding
