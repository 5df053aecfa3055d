// Multi-head self-attention helper: the op sequence of HF BertSelfAttention
// (scores divided by sqrt(head_dim), mask added before softmax).
#include "models/common/attention.h"

#include <cmath>

#include "core/error.h"

namespace meshtest::models {

ValueId multi_head_self_attention(LayerContext& ctx, const std::string& prefix, ValueId x, ValueId additive_mask,
                                  const AttentionSpec& spec) {
  GraphBuilder& b = ctx.builder;
  const Shape in_shape = b.shape(x);
  if (in_shape.size() != 3) throw CompileError("attention '" + prefix + "': input must be [B,S,H]");
  const int64_t batch = in_shape[0];
  const int64_t seq = in_shape[1];
  const int64_t hidden = in_shape[2];
  if (spec.num_heads <= 0 || hidden % spec.num_heads != 0) {
    throw CompileError("attention '" + prefix + "': hidden size " + std::to_string(hidden) + " is not divisible by " +
                       std::to_string(spec.num_heads) + " heads");
  }
  const int64_t head_dim = hidden / spec.num_heads;

  // [B,S,H] -> [B,S,heads,head_dim] -> perm
  auto heads = [&](ValueId t, std::vector<int64_t> perm) {
    return b.transpose(b.reshape(t, {batch, seq, spec.num_heads, head_dim}), std::move(perm));
  };
  const ValueId q = heads(linear(ctx, join_name(prefix, spec.query), x, hidden, spec.init), {0, 2, 1, 3});
  const ValueId k_t = heads(linear(ctx, join_name(prefix, spec.key), x, hidden, spec.init), {0, 2, 3, 1});
  const ValueId v = heads(linear(ctx, join_name(prefix, spec.value), x, hidden, spec.init), {0, 2, 1, 3});

  ValueId scores = b.matmul(q, k_t);  // [B, heads, S, S]
  scores = b.div(scores, ctx.scalar(std::sqrt(static_cast<double>(head_dim))));
  if (additive_mask != kNoValue) scores = b.add(scores, additive_mask);
  const ValueId probs = b.softmax(scores, -1);
  ValueId context = b.matmul(probs, v);  // [B, heads, S, head_dim]
  context = b.reshape(b.transpose(context, {0, 2, 1, 3}), {batch, seq, hidden});
  return linear(ctx, join_name(prefix, spec.output), context, hidden, spec.init);
}

}  // namespace meshtest::models
