// Private to compiler/autodiff*: the emitter backward rules build ops with,
// and the per-op vector-Jacobian rules (one file per op family; the table
// that maps ops to rules is vjp_rules.cpp).
#pragma once

#include <vector>

#include "core/graph.h"

namespace meshtest::compiler::autodiff {

// Appends ops to a graph with inferred result types; helpers for the small
// formulas rules are made of. Constants take the dtype of the value they meet.
class Emitter {
 public:
  explicit Emitter(Graph& graph) : graph_(graph) {}

  ValueId op(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {});
  // Copies: emitting an op may reallocate the graph's values.
  TensorType type(ValueId v) const { return graph_.type(v); }
  Shape shape(ValueId v) const { return graph_.type(v).shape; }
  DType dtype(ValueId v) const { return graph_.type(v).dtype; }

  ValueId scalar(double value, DType dtype);      // constant of shape []
  ValueId filled(double value, TensorType type);  // constant of a full type
  ValueId add(ValueId a, ValueId b) { return op(OpKind::Add, {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return op(OpKind::Sub, {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return op(OpKind::Mul, {a, b}); }
  ValueId div(ValueId a, ValueId b) { return op(OpKind::Div, {a, b}); }
  ValueId neg(ValueId a) { return op(OpKind::Neg, {a}); }
  ValueId scale(ValueId a, double factor) { return mul(a, scalar(factor, dtype(a))); }
  ValueId plus(ValueId a, double value) { return add(a, scalar(value, dtype(a))); }
  ValueId matmul(ValueId a, ValueId b) { return op(OpKind::Matmul, {a, b}); }
  ValueId reshape(ValueId x, Shape shape);  // no-op when the shape is already `shape`
  ValueId transpose(ValueId x, const std::vector<int64_t>& perm);
  ValueId swap_last_two(ValueId x);  // transpose of the last two dims
  ValueId reduce_sum(ValueId x, const std::vector<int64_t>& axes, bool keepdim);
  ValueId reduce_mean(ValueId x, const std::vector<int64_t>& axes, bool keepdim);
  ValueId cast(ValueId x, DType dtype);  // no-op for the same dtype
  // 1 where a >= b, else 0 (as 1 - greater(b, a)).
  ValueId greater_equal(ValueId a, ValueId b);
  // Sums a gradient of a broadcast result back to an operand's shape.
  ValueId unbroadcast(ValueId grad, Shape shape);
  // Broadcasts `x` (shape broadcastable to `type`) to `type`, times `factor`.
  ValueId expand(ValueId x, TensorType type, double factor = 1.0);

 private:
  Graph& graph_;
};

// What a rule sees: the forward op, the gradient of its result, and which
// operands need a gradient. A rule returns one value per operand (kNoValue
// where none is wanted or the operand is not differentiable), each with the
// operand's type.
struct VjpContext {
  Emitter& e;
  const Op& op;
  ValueId grad;
  std::vector<bool> wanted;

  ValueId in(size_t i) const { return op.inputs[i]; }
  ValueId out() const { return op.output; }
  bool wants(size_t i) const { return i < wanted.size() && wanted[i]; }
};

using Grads = std::vector<ValueId>;
using VjpRule = Grads (*)(VjpContext& ctx);

// The rule of `kind`, or nullptr when it has none (see vjp_rules.cpp).
VjpRule find_vjp_rule(OpKind kind);

// vjp_elementwise.cpp
Grads vjp_unary(VjpContext& ctx);
Grads vjp_add_sub(VjpContext& ctx);
Grads vjp_mul(VjpContext& ctx);
Grads vjp_div(VjpContext& ctx);
Grads vjp_maximum(VjpContext& ctx);
Grads vjp_cast(VjpContext& ctx);
// vjp_linalg.cpp
Grads vjp_matmul(VjpContext& ctx);
Grads vjp_linear(VjpContext& ctx);
Grads vjp_conv2d(VjpContext& ctx);
// vjp_nn.cpp
Grads vjp_max_pool2d(VjpContext& ctx);
Grads vjp_avg_pool2d(VjpContext& ctx);
Grads vjp_global_avg_pool2d(VjpContext& ctx);
Grads vjp_batch_norm(VjpContext& ctx);
Grads vjp_layer_norm(VjpContext& ctx);
Grads vjp_softmax(VjpContext& ctx);
Grads vjp_rms_norm(VjpContext& ctx);
Grads vjp_sdpa(VjpContext& ctx);
// vjp_shape.cpp
Grads vjp_embedding(VjpContext& ctx);
Grads vjp_reshape(VjpContext& ctx);
Grads vjp_transpose(VjpContext& ctx);
Grads vjp_concat(VjpContext& ctx);
Grads vjp_slice(VjpContext& ctx);
// vjp_reduce.cpp
Grads vjp_reduce_sum_mean(VjpContext& ctx);
Grads vjp_reduce_max(VjpContext& ctx);

}  // namespace meshtest::compiler::autodiff
