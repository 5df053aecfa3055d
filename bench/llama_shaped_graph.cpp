// Llama-shaped decoder graph (see llama_shaped_graph.h).
#include "bench/llama_shaped_graph.h"

#include <cmath>
#include <string>

#include "core/graph_builder.h"

namespace meshtest::bench {

namespace {

class Builder {
 public:
  explicit Builder(const LlamaShape& s) : s_(s), b_("llama_shaped") {}

  Graph build() {
    const ValueId ids = b_.input("input_ids", DType::I64, {1, s_.seq});
    const ValueId mask = b_.input("attention_mask", DType::F32, {1, 1, s_.seq, s_.seq});
    cos_ = weight("rope.cos", {s_.seq, head_dim()}, 0.5);
    sin_ = weight("rope.sin", {s_.seq, head_dim()}, 0.5);
    ValueId h = b_.op(OpKind::Embedding, {ids, weight("embed_tokens.weight", {s_.vocab, s_.hidden}, 0.02)});
    for (int64_t l = 0; l < s_.layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      h = b_.add(h, attention(p, rms_norm(p + "input_layernorm", h), mask));
      h = b_.add(h, mlp(p + "mlp.", rms_norm(p + "post_attention_layernorm", h)));
    }
    h = rms_norm("norm", h);
    b_.output("logits", b_.linear(h, weight("lm_head.weight", {s_.vocab, s_.hidden}, 0.02)));
    return b_.finish();
  }

 private:
  int64_t head_dim() const { return s_.hidden / s_.heads; }

  ValueId weight(const std::string& name, Shape shape, double std) {
    return b_.weight(name, std::move(shape), Initializer::normal(0.0, std, ++seed_));
  }
  ValueId scalar(double v) { return b_.constant(v); }

  // HF LlamaRMSNorm: f32 statistics, cast back before the weight multiply.
  ValueId rms_norm(const std::string& name, ValueId x) {
    const ValueId h = b_.op(OpKind::Cast, {x}, {{"dtype", std::string("f32")}});
    const ValueId var =
        b_.op(OpKind::ReduceMean, {b_.mul(h, h)}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
    const ValueId n = b_.mul(h, b_.op(OpKind::Rsqrt, {b_.add(var, scalar(1e-5))}));
    const ValueId w = b_.weight(name + ".weight", {s_.hidden}, Initializer::constant(1.0));
    return b_.mul(w, b_.op(OpKind::Cast, {n}, {{"dtype", std::string("f32")}}));
  }

  // [1, S, heads*D] -> [1, heads, S, D]
  ValueId split_heads(ValueId x, int64_t heads) {
    return b_.transpose(b_.reshape(x, {1, s_.seq, heads, head_dim()}), {0, 2, 1, 3});
  }

  ValueId rotary(ValueId x) {
    const int64_t half = head_dim() / 2;
    const ValueId rotated =
        b_.concat({b_.op(OpKind::Neg, {b_.slice(x, -1, half, head_dim())}), b_.slice(x, -1, 0, half)}, -1);
    return b_.add(b_.mul(x, cos_), b_.mul(rotated, sin_));
  }

  // [1, kv, S, D] -> [1, heads, S, D] (repeat_kv)
  ValueId repeat_kv(ValueId x) {
    const int64_t groups = s_.heads / s_.kv_heads;
    const ValueId e = b_.reshape(x, {1, s_.kv_heads, 1, s_.seq, head_dim()});
    return b_.reshape(b_.concat(std::vector<ValueId>(static_cast<size_t>(groups), e), 2),
                      {1, s_.heads, s_.seq, head_dim()});
  }

  ValueId attention(const std::string& p, ValueId x, ValueId mask) {
    const int64_t kv_width = s_.kv_heads * head_dim();
    const ValueId q = rotary(
        split_heads(b_.linear(x, weight(p + "self_attn.q_proj.weight", {s_.hidden, s_.hidden}, 0.02)), s_.heads));
    const ValueId k = rotary(
        split_heads(b_.linear(x, weight(p + "self_attn.k_proj.weight", {kv_width, s_.hidden}, 0.02)), s_.kv_heads));
    const ValueId v =
        split_heads(b_.linear(x, weight(p + "self_attn.v_proj.weight", {kv_width, s_.hidden}, 0.02)), s_.kv_heads);
    const ValueId kt = b_.transpose(repeat_kv(k), {0, 1, 3, 2});
    ValueId scores = b_.mul(b_.matmul(q, kt), scalar(1.0 / std::sqrt(static_cast<double>(head_dim()))));
    scores = b_.add(scores, mask);
    const ValueId context = b_.matmul(b_.softmax(scores, -1), repeat_kv(v));
    const ValueId merged = b_.reshape(b_.transpose(context, {0, 2, 1, 3}), {1, s_.seq, s_.hidden});
    return b_.linear(merged, weight(p + "self_attn.o_proj.weight", {s_.hidden, s_.hidden}, 0.02));
  }

  ValueId mlp(const std::string& p, ValueId x) {
    const ValueId gate =
        b_.op(OpKind::Silu, {b_.linear(x, weight(p + "gate_proj.weight", {s_.intermediate, s_.hidden}, 0.02))});
    const ValueId up = b_.linear(x, weight(p + "up_proj.weight", {s_.intermediate, s_.hidden}, 0.02));
    return b_.linear(b_.mul(gate, up), weight(p + "down_proj.weight", {s_.hidden, s_.intermediate}, 0.02));
  }

  LlamaShape s_;
  GraphBuilder b_;
  uint64_t seed_ = 1000;
  ValueId cos_ = kNoValue;
  ValueId sin_ = kNoValue;
};

}  // namespace

Graph llama_shaped_graph(const LlamaShape& shape) { return Builder(shape).build(); }

}  // namespace meshtest::bench
