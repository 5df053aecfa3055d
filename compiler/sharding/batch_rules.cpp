// Sharding rules of ops split only along batch dims: attention (sdpa: heads
// and batch), and the data-parallel conv / pool / batch_norm family with its
// gradients (weight gradients are partial sums over the batch).
#include "compiler/sharding/sharding_rules.h"

namespace meshtest::compiler::sharding {

namespace {

// Ops whose last `inner` dims must stay whole and whose leading dims are
// batch dims, split alike on every operand (sdpa: heads, batch).
std::optional<Local> batch_dims_rule(ShardContext& cx, const Op& op, const std::vector<Local>& in, size_t inner,
                                     std::string& why) {
  const size_t out_rank = cx.gtype(op.output).shape.size();
  Sharding s = Sharding::replicated(out_rank);
  for (size_t k = 0; k < in.size(); ++k) {
    const Shape& shape = cx.gtype(op.inputs[k]).shape;
    const auto& dims = in[k].sharding.dims;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].empty()) continue;
      const size_t j = d + out_rank - dims.size();
      if (d + inner >= dims.size() || shape[d] == 1 || (!s.dims[j].empty() && s.dims[j] != dims[d])) {
        why = std::string(op_name(op.kind)) + " operands split on inner or mismatched dims";
        return std::nullopt;
      }
      s.dims[j] = dims[d];
    }
  }
  for (size_t k = 0; k < in.size(); ++k) {  // every operand with a batch dim must carry its split
    const Shape& shape = cx.gtype(op.inputs[k]).shape;
    for (size_t d = 0; d + inner < shape.size(); ++d) {
      const size_t j = d + out_rank - shape.size();
      if (shape[d] != 1 && in[k].sharding.dims[d] != s.dims[j]) {
        why = std::string(op_name(op.kind)) + " operands split on mismatched batch dims";
        return std::nullopt;
      }
    }
  }
  return Local{cx.emit(op.kind, values_of(in), op.attrs), s};
}

// The dim-0 (batch) split shared by the first `batched` operands, every
// other dim and operand replicated; nullopt (with `why`) otherwise.
std::optional<std::vector<int>> batch_split(const Op& op, const std::vector<Local>& in, size_t batched,
                                            std::string& why) {
  for (size_t k = 0; k < in.size(); ++k) {
    const auto& dims = in[k].sharding.dims;
    if (k < batched && dims[0] != in[0].sharding.dims[0]) {
      why = std::string(op_name(op.kind)) + " operands split differently on the batch dim";
      return std::nullopt;
    }
    for (size_t d = (k < batched ? 1 : 0); d < dims.size(); ++d) {
      if (!dims[d].empty()) {
        why = std::string(op_name(op.kind)) + " with a split other than the batch dim";
        return std::nullopt;
      }
    }
  }
  return in[0].sharding.dims[0];
}

// conv / pools / batch_norm and their input gradients: only a dim-0
// (batch) split of the first `batched` operands, which the result keeps.
std::optional<Local> data_parallel(ShardContext& cx, const Op& op, const std::vector<Local>& in, size_t batched,
                                   std::string& why) {
  const size_t out_rank = cx.gtype(op.output).shape.size();
  const std::optional<std::vector<int>> axes = batch_split(op, in, batched, why);
  if (!axes) return std::nullopt;
  Sharding s = Sharding::replicated(out_rank);
  s.dims[0] = *axes;
  Attrs attrs = op.attrs;  // input gradients name the (now local) shape they produce
  if (attrs.has("input_shape")) attrs.set("input_shape", local_shape(cx.mesh(), attrs.get_ints("input_shape"), s));
  return Local{cx.emit(op.kind, values_of(in), attrs), s};
}

}  // namespace

std::optional<Local> attention_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  return batch_dims_rule(cx, op, in, 2, why);
}

std::optional<Local> data_parallel_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  return data_parallel(cx, op, in, 1, why);
}

// max_pool2d_backward(x, dy): both operands carry the batch split.
std::optional<Local> data_parallel_two_operand_rule(ShardContext& cx, const Op& op, std::vector<Local>& in,
                                                    std::string& why) {
  return data_parallel(cx, op, in, 2, why);
}

// conv2d_backward_weight(x, dy) with the batch split: each chip's partial
// weight gradient, summed over the batch's chips by one all_reduce (the
// data-parallel gradient all-reduce).
std::optional<Local> weight_gradient_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why) {
  const size_t out_rank = cx.gtype(op.output).shape.size();
  const std::optional<std::vector<int>> axes = batch_split(op, in, in.size(), why);
  if (!axes) return std::nullopt;
  const ValueId v = cx.emit(op.kind, values_of(in), op.attrs);
  if (axes->empty()) return Local{v, Sharding::replicated(out_rank)};
  return cx.all_reduce(v, *axes, Sharding::replicated(out_rank));
}

}  // namespace meshtest::compiler::sharding
