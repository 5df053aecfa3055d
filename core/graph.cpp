// Graph container helpers, weight materialization and structural verification.
#include "core/graph.h"

#include <tbb/parallel_for.h>

#include "core/error.h"
#include "core/limits.h"
#include "core/rng.h"

namespace meshtest {

ValueId Graph::add_value(TensorType type, std::string value_name) {
  values.push_back({std::move(type), std::move(value_name)});
  return static_cast<ValueId>(values.size() - 1);
}

const Param* Graph::find_param(std::string_view param_name) const {
  for (const Param& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

Param* Graph::find_param(std::string_view param_name) {
  for (Param& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

std::vector<const Param*> Graph::inputs() const {
  std::vector<const Param*> out;
  for (const Param& p : params) {
    if (p.kind == ParamKind::Input) out.push_back(&p);
  }
  return out;
}

std::vector<const Param*> Graph::weights() const {
  std::vector<const Param*> out;
  for (const Param& p : params) {
    if (p.kind == ParamKind::Weight) out.push_back(&p);
  }
  return out;
}

int64_t Graph::weight_count() const {
  int64_t n = 0;
  for (const Param* p : weights()) n += shape_numel(type(p->value).shape);
  return n;
}

Tensor materialize(const Param& param, const TensorType& type) {
  if (param.data.defined() && (param.data.numel() > 0 || shape_numel(type.shape) == 0)) return param.data;
  if (!param.init) throw Error("weight '" + param.name + "' has neither data nor an initializer");
  const Initializer& init = *param.init;
  // Random weights are generated in their own dtype (bf16 directly, no f32 pass).
  const DType dtype = is_floating(type.dtype) ? type.dtype : DType::F32;
  Tensor t;
  switch (init.dist) {
    case Initializer::Dist::Normal:
      t = random_normal(type.shape, init.seed, static_cast<float>(init.a), static_cast<float>(init.b), dtype);
      break;
    case Initializer::Dist::Uniform:
      t = random_uniform(type.shape, init.seed, static_cast<float>(init.a), static_cast<float>(init.b), dtype);
      break;
    case Initializer::Dist::Constant: t = filled(type.shape, static_cast<float>(init.a)); break;
  }
  return t.to(type.dtype);
}

void Graph::materialize_weights() {
  tbb::parallel_for(size_t{0}, params.size(), [&](size_t i) {
    Param& p = params[i];
    if (p.kind == ParamKind::Weight) p.data = materialize(p, type(p.value));
  });
}

std::string describe_op(const Graph& graph, size_t op_index) {
  return "op #" + std::to_string(op_index) + " " + std::string(op_name(graph.ops.at(op_index).kind));
}

void verify_graph(const Graph& graph) {
  const size_t n = graph.values.size();
  std::vector<bool> defined(n, false);
  for (const Param& p : graph.params) {
    if (p.value < 0 || static_cast<size_t>(p.value) >= n) throw CompileError("param '" + p.name + "' has no value");
    if (defined[static_cast<size_t>(p.value)]) throw CompileError("param '" + p.name + "' redefines a value");
    if (p.data.defined() && p.data.numel() > 0 && p.data.shape() != graph.type(p.value).shape) {
      throw CompileError("weight '" + p.name + "' data shape " + shape_to_string(p.data.shape()) +
                         " differs from declared " + type_to_string(graph.type(p.value)));
    }
    try {
      checked_tensor_bytes(graph.type(p.value).dtype, graph.type(p.value).shape, "param '" + p.name + "'");
    } catch (const Error& e) {
      throw CompileError(e.what());
    }
    defined[static_cast<size_t>(p.value)] = true;
  }
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    std::vector<TensorType> in;
    for (ValueId v : op.inputs) {
      if (v < 0 || static_cast<size_t>(v) >= n || !defined[static_cast<size_t>(v)]) {
        throw CompileError(describe_op(graph, i) + ": operand %" + std::to_string(v) + " is not defined before use");
      }
      in.push_back(graph.type(v));
    }
    TensorType inferred;
    try {
      inferred = infer_type(op.kind, in, op.attrs);
    } catch (const CompileError& e) {
      throw CompileError(describe_op(graph, i) + ": " + e.what());
    }
    if (op.output < 0 || static_cast<size_t>(op.output) >= n || defined[static_cast<size_t>(op.output)]) {
      throw CompileError(describe_op(graph, i) + ": result value is invalid or defined twice");
    }
    try {
      checked_tensor_bytes(inferred.dtype, inferred.shape, "result");
    } catch (const Error& e) {
      throw CompileError(describe_op(graph, i) + ": " + e.what());
    }
    if (graph.type(op.output) != inferred) {
      throw CompileError(describe_op(graph, i) + ": declared result type " + type_to_string(graph.type(op.output)) +
                         " but operands give " + type_to_string(inferred));
    }
    defined[static_cast<size_t>(op.output)] = true;
  }
  if (graph.outputs.empty()) throw CompileError("graph '" + graph.name + "' has no outputs");
  for (const GraphOutput& o : graph.outputs) {
    if (o.value < 0 || static_cast<size_t>(o.value) >= n || !defined[static_cast<size_t>(o.value)]) {
      throw CompileError("output '" + o.name + "' refers to an undefined value");
    }
  }
}

}  // namespace meshtest
