// The op emitter of the backward rules: appends typed ops to the training
// graph, plus the reshape / reduce / broadcast helpers the rules share.
#include <algorithm>

#include "compiler/autodiff/vjp.h"
#include "core/error.h"

namespace meshtest::compiler::autodiff {

ValueId Emitter::op(OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
  std::vector<TensorType> types;
  types.reserve(inputs.size());
  for (ValueId v : inputs) types.push_back(graph_.type(v));
  TensorType result;
  try {
    result = infer_type(kind, types, attrs);
  } catch (const CompileError& e) {
    throw CompileError("autodiff emitting " + std::string(op_name(kind)) + ": " + e.what());
  }
  Op op{kind, std::move(inputs), graph_.add_value(result), std::move(attrs)};
  graph_.ops.push_back(std::move(op));
  return graph_.ops.back().output;
}

ValueId Emitter::scalar(double value, DType dtype) { return filled(value, {dtype, {}}); }

ValueId Emitter::filled(double value, TensorType type) {
  return op(OpKind::Constant, {},
            {{"value", value}, {"dtype", std::string(dtype_name(type.dtype))}, {"shape", type.shape}});
}

ValueId Emitter::reshape(ValueId x, Shape shape) {
  if (this->shape(x) == shape) return x;
  return op(OpKind::Reshape, {x}, {{"shape", shape}});
}

ValueId Emitter::transpose(ValueId x, const std::vector<int64_t>& perm) {
  return op(OpKind::Transpose, {x}, {{"perm", perm}});
}

ValueId Emitter::swap_last_two(ValueId x) {
  const auto rank = static_cast<int64_t>(shape(x).size());
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
  return transpose(x, perm);
}

ValueId Emitter::reduce_sum(ValueId x, const std::vector<int64_t>& axes, bool keepdim) {
  return op(OpKind::ReduceSum, {x}, {{"axes", axes}, {"keepdim", int64_t{keepdim ? 1 : 0}}});
}

ValueId Emitter::reduce_mean(ValueId x, const std::vector<int64_t>& axes, bool keepdim) {
  return op(OpKind::ReduceMean, {x}, {{"axes", axes}, {"keepdim", int64_t{keepdim ? 1 : 0}}});
}

ValueId Emitter::cast(ValueId x, DType target) {
  if (dtype(x) == target) return x;
  return op(OpKind::Cast, {x}, {{"dtype", std::string(dtype_name(target))}});
}

ValueId Emitter::greater_equal(ValueId a, ValueId b) {
  const ValueId gt = op(OpKind::Greater, {b, a});
  return sub(scalar(1.0, dtype(gt)), gt);
}

ValueId Emitter::unbroadcast(ValueId grad, Shape target) {
  const Shape from = shape(grad);
  if (from == target) return grad;
  const size_t lead = from.size() - target.size();
  std::vector<int64_t> axes;
  for (size_t i = 0; i < from.size(); ++i) {
    if (i < lead || (target[i - lead] == 1 && from[i] != 1)) axes.push_back(static_cast<int64_t>(i));
  }
  const ValueId summed = axes.empty() ? grad : reduce_sum(grad, axes, true);
  return reshape(summed, target);
}

ValueId Emitter::expand(ValueId x, TensorType type, double factor) {
  if (shape(x) == type.shape) return factor == 1.0 ? x : scale(x, factor);
  return mul(x, filled(factor, type));
}

}  // namespace meshtest::compiler::autodiff
