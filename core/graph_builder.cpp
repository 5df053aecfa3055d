// GraphBuilder: typed construction of graphs with immediate shape checks.
#include "core/graph_builder.h"

#include "core/error.h"

namespace meshtest {

GraphBuilder::GraphBuilder(std::string name) { graph_.name = std::move(name); }

ValueId GraphBuilder::add_param(const std::string& name, ParamKind kind, TensorType type) {
  if (name.empty()) throw CompileError("parameter names must not be empty");
  if (graph_.find_param(name) != nullptr) throw CompileError("duplicate parameter name '" + name + "'");
  const ValueId v = graph_.add_value(std::move(type), name);
  Param p;
  p.name = name;
  p.kind = kind;
  p.value = v;
  graph_.params.push_back(std::move(p));
  return v;
}

ValueId GraphBuilder::input(const std::string& name, DType dtype, Shape shape) {
  return add_param(name, ParamKind::Input, {dtype, std::move(shape)});
}

ValueId GraphBuilder::weight(const std::string& name, Shape shape, Initializer init, DType dtype) {
  const ValueId v = add_param(name, ParamKind::Weight, {dtype, std::move(shape)});
  graph_.params.back().init = init;
  return v;
}

ValueId GraphBuilder::weight(const std::string& name, Tensor data, std::string source) {
  const ValueId v = add_param(name, ParamKind::Weight, {data.dtype(), data.shape()});
  graph_.params.back().data = std::move(data);
  graph_.params.back().data_source = std::move(source);
  return v;
}

ValueId GraphBuilder::op(OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
  std::vector<TensorType> types;
  for (ValueId v : inputs) {
    if (v < 0 || static_cast<size_t>(v) >= graph_.values.size()) {
      throw CompileError("op #" + std::to_string(graph_.ops.size()) + " " + std::string(op_name(kind)) +
                         ": operand is not a value of this graph");
    }
    types.push_back(graph_.type(v));
  }
  TensorType result;
  try {
    result = infer_type(kind, types, attrs);
  } catch (const CompileError& e) {
    throw CompileError("op #" + std::to_string(graph_.ops.size()) + " " + std::string(op_name(kind)) + " in '" +
                       graph_.name + "': " + e.what());
  }
  const ValueId out = graph_.add_value(std::move(result));
  graph_.ops.push_back({kind, std::move(inputs), out, std::move(attrs)});
  return out;
}

ValueId GraphBuilder::linear(ValueId x, ValueId w, ValueId bias) {
  if (bias == kNoValue) return op(OpKind::Linear, {x, w});
  return op(OpKind::Linear, {x, w, bias});
}

ValueId GraphBuilder::constant(double value, Shape shape, DType dtype) {
  return op(OpKind::Constant, {},
            {{"value", value}, {"dtype", std::string(dtype_name(dtype))}, {"shape", std::move(shape)}});
}

ValueId GraphBuilder::reshape(ValueId x, Shape shape) {
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) throw CompileError("reshape: more than one -1 in " + shape_to_string(shape));
      unknown = static_cast<int>(i);
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) shape[static_cast<size_t>(unknown)] = known == 0 ? 0 : shape_numel(this->shape(x)) / known;
  return op(OpKind::Reshape, {x}, {{"shape", shape}});
}

ValueId GraphBuilder::transpose(ValueId x, std::vector<int64_t> perm) {
  return op(OpKind::Transpose, {x}, {{"perm", std::move(perm)}});
}

ValueId GraphBuilder::slice(ValueId x, int64_t axis, int64_t start, int64_t end, int64_t step) {
  return op(OpKind::Slice, {x}, {{"axis", axis}, {"start", start}, {"end", end}, {"step", step}});
}

void GraphBuilder::output(const std::string& name, ValueId value) {
  for (const GraphOutput& o : graph_.outputs) {
    if (o.name == name) throw CompileError("duplicate output name '" + name + "'");
  }
  graph_.outputs.push_back({name, value});
}

Graph GraphBuilder::finish() {
  verify_graph(graph_);
  Graph out = std::move(graph_);
  graph_ = Graph{};
  graph_.name = out.name;
  return out;
}

}  // namespace meshtest
