// Multi-head self-attention helper: projections by layout, then scaled
// dot-product attention; grouped-query heads broadcast through a 5-D matmul
// ([B, kv_heads, group, S, d] x [B, kv_heads, 1, d, S]) instead of copies.
#include "models/common/attention.h"

#include <cmath>

#include "core/error.h"
#include "models/common/rotary.h"

namespace meshtest::models {
namespace {

struct Projected {
  ValueId q, k, v;
};

LinearInit with_bias(const LinearInit& init, bool bias) {
  LinearInit out = init;
  if (!bias) out.bias.reset();
  return out;
}

Projected project(LayerContext& ctx, const std::string& prefix, ValueId x, const AttentionSpec& spec, int64_t q_width,
                  int64_t kv_width) {
  GraphBuilder& b = ctx.builder;
  const int64_t hidden = b.shape(x).back();
  const LinearInit v_init = with_bias(spec.init, spec.qkv_bias);
  LinearInit qk_init = v_init;
  if (spec.score_std > 0) qk_init.weight = init::query_key(hidden, spec.score_std);
  switch (spec.layout) {
    case QkvLayout::Separate:
      return {linear(ctx, join_name(prefix, spec.query), x, q_width, qk_init),
              linear(ctx, join_name(prefix, spec.key), x, kv_width, with_bias(qk_init, spec.key_bias)),
              linear(ctx, join_name(prefix, spec.value), x, kv_width, v_init)};
    case QkvLayout::FusedInProj:
    case QkvLayout::FusedConv1D: {
      const int64_t width = q_width + 2 * kv_width;
      ValueId qkv;
      if (spec.layout == QkvLayout::FusedConv1D) {
        qkv = conv1d_linear(ctx, join_name(prefix, spec.query), x, width, qk_init);
      } else {
        const ValueId w = ctx.weight(join_name(prefix, spec.query + "_weight"), {width, hidden}, qk_init.weight);
        const ValueId bias = qk_init.bias ? ctx.weight(join_name(prefix, spec.query + "_bias"), {width}, *qk_init.bias)
                                          : kNoValue;
        qkv = b.linear(x, w, bias);
      }
      return {b.slice(qkv, 2, 0, q_width), b.slice(qkv, 2, q_width, q_width + kv_width),
              b.slice(qkv, 2, q_width + kv_width, width)};
    }
  }
  throw CompileError("attention '" + prefix + "': unknown projection layout");
}

}  // namespace

ValueId multi_head_self_attention(LayerContext& ctx, const std::string& prefix, ValueId x, ValueId additive_mask,
                                  const AttentionSpec& spec, const LayerKv& past, LayerKv* present) {
  GraphBuilder& b = ctx.builder;
  const Shape in_shape = b.shape(x);
  if (in_shape.size() != 3) throw CompileError("attention '" + prefix + "': input must be [B,S,H]");
  const int64_t batch = in_shape[0];
  const int64_t seq = in_shape[1];
  const int64_t hidden = in_shape[2];
  const int64_t heads = spec.num_heads;
  const int64_t kv_heads = spec.num_kv_heads > 0 ? spec.num_kv_heads : heads;
  if (heads <= 0 || (spec.head_dim == 0 && hidden % heads != 0) || heads % kv_heads != 0) {
    throw CompileError("attention '" + prefix + "': " + std::to_string(heads) + " heads (" + std::to_string(kv_heads) +
                       " key/value heads) do not divide hidden size " + std::to_string(hidden));
  }
  const int64_t head_dim = spec.head_dim > 0 ? spec.head_dim : hidden / heads;
  const int64_t group = heads / kv_heads;
  const Projected p = project(ctx, prefix, x, spec, heads * head_dim, kv_heads * head_dim);

  // [B,S,n*d] -> [B,n,S,d]
  auto split_heads = [&](ValueId t, int64_t n) {
    return b.transpose(b.reshape(t, {batch, seq, n, head_dim}), {0, 2, 1, 3});
  };
  ValueId q = split_heads(p.q, heads);
  ValueId k = split_heads(p.k, kv_heads);
  ValueId v = split_heads(p.v, kv_heads);
  if (spec.rope_cos != kNoValue) {
    q = apply_rotary(b, q, spec.rope_cos, spec.rope_sin);
    k = apply_rotary(b, k, spec.rope_cos, spec.rope_sin);
  }
  if (past.key != kNoValue) {  // the cache's positions first, then the new tokens
    k = b.concat({past.key, k}, 2);
    v = b.concat({past.value, v}, 2);
  }
  if (present != nullptr) *present = {k, v};
  const int64_t total = b.shape(k)[2];
  ValueId mask = additive_mask;
  if (group > 1) {  // query heads grouped under their key/value head
    q = b.reshape(q, {batch, kv_heads, group, seq, head_dim});
    k = b.reshape(k, {batch, kv_heads, 1, total, head_dim});
    v = b.reshape(v, {batch, kv_heads, 1, total, head_dim});
    if (mask != kNoValue) {
      const Shape m = b.shape(mask);
      if (m.size() != 4) throw CompileError("attention '" + prefix + "': the mask must be rank 4");
      mask = b.reshape(mask, {m[0], 1, m[1], m[2], m[3]});
    }
  }
  const int64_t rank = static_cast<int64_t>(b.shape(k).size());
  std::vector<int64_t> swap_last(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) swap_last[static_cast<size_t>(i)] = i;
  std::swap(swap_last[static_cast<size_t>(rank - 1)], swap_last[static_cast<size_t>(rank - 2)]);

  ValueId scores = b.matmul(q, b.transpose(k, swap_last));
  scores = b.div(scores, ctx.scalar(std::sqrt(static_cast<double>(head_dim))));
  if (mask != kNoValue) scores = b.add(scores, mask);
  ValueId context = b.matmul(b.softmax(scores, -1), v);  // [B,(kv,group|heads),S,d]
  context = b.reshape(context, {batch, heads, seq, head_dim});
  context = b.reshape(b.transpose(context, {0, 2, 1, 3}), {batch, seq, heads * head_dim});

  LinearInit out_init = with_bias(spec.init, spec.output_bias);
  if (spec.output_weight) out_init.weight = *spec.output_weight;
  const std::string out_name = join_name(prefix, spec.output);
  return spec.layout == QkvLayout::FusedConv1D ? conv1d_linear(ctx, out_name, context, hidden, out_init)
                                               : linear(ctx, out_name, context, hidden, out_init);
}

}  // namespace meshtest::models
