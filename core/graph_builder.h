// GraphBuilder: the way loaders and tests construct graphs. Every op's result
// type is inferred on the spot, so a shape mistake throws CompileError naming
// the op while the model is being built.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace meshtest {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name);

  ValueId input(const std::string& name, DType dtype, Shape shape);
  // Lazy weight: materialized from `init` only when executed.
  ValueId weight(const std::string& name, Shape shape, Initializer init, DType dtype = DType::F32);
  // Weight with data (e.g. loaded from a file); `source` names where the
  // data comes from when it is a file's (Param::data_source).
  ValueId weight(const std::string& name, Tensor data, std::string source = "");

  // Generic op; attributes as documented in core/ops.h.
  ValueId op(OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {});

  // Shorthands for the common ops.
  ValueId add(ValueId a, ValueId b) { return op(OpKind::Add, {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return op(OpKind::Sub, {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return op(OpKind::Mul, {a, b}); }
  ValueId div(ValueId a, ValueId b) { return op(OpKind::Div, {a, b}); }
  ValueId relu(ValueId x) { return op(OpKind::Relu, {x}); }
  ValueId matmul(ValueId a, ValueId b) { return op(OpKind::Matmul, {a, b}); }
  ValueId linear(ValueId x, ValueId w, ValueId bias = kNoValue);
  ValueId constant(double value, Shape shape = {}, DType dtype = DType::F32);
  // `shape` may contain one -1, resolved from the element count.
  ValueId reshape(ValueId x, Shape shape);
  ValueId transpose(ValueId x, std::vector<int64_t> perm);
  ValueId softmax(ValueId x, int64_t axis = -1) { return op(OpKind::Softmax, {x}, {{"axis", axis}}); }
  ValueId slice(ValueId x, int64_t axis, int64_t start, int64_t end, int64_t step = 1);
  ValueId concat(std::vector<ValueId> xs, int64_t axis) { return op(OpKind::Concat, std::move(xs), {{"axis", axis}}); }

  void output(const std::string& name, ValueId value);
  const TensorType& type(ValueId id) const { return graph_.type(id); }
  const Shape& shape(ValueId id) const { return graph_.type(id).shape; }

  // Returns the finished graph (verified). The builder is empty afterwards.
  Graph finish();

 private:
  ValueId add_param(const std::string& name, ParamKind kind, TensorType type);
  Graph graph_;
};

}  // namespace meshtest
