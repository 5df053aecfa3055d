// Implementation of autodiff_test_util.h.
#include "tests/autodiff/autodiff_test_util.h"

#include <cmath>

#include "compiler/compile.h"
#include "compiler/graph_rewrite.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::testing {

namespace {

ValueId scalar(Graph& g, std::vector<Op>& ops, double value, DType dtype) {
  return compiler::emit_op(g, ops, OpKind::Constant, {},
                           {{"value", value}, {"dtype", std::string(dtype_name(dtype))}, {"shape", Shape{}}});
}

void expand_rms_norm(Graph& g, const Op& op, std::vector<Op>& ops) {
  using compiler::emit_op;
  const ValueId x = op.inputs[0];
  const DType dt = g.type(x).dtype;
  const ValueId ms = emit_op(g, ops, OpKind::ReduceMean, {emit_op(g, ops, OpKind::Mul, {x, x})},
                             {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
  const ValueId r = emit_op(g, ops, OpKind::Rsqrt,
                            {emit_op(g, ops, OpKind::Add, {ms, scalar(g, ops, op.attrs.get_float("eps"), dt)})});
  emit_op(g, ops, OpKind::Mul, {emit_op(g, ops, OpKind::Mul, {x, r}), op.inputs[1]}, {}, op.output);
}

void expand_sdpa(Graph& g, const Op& op, std::vector<Op>& ops) {
  using compiler::emit_op;
  const DType dt = g.type(op.inputs[0]).dtype;
  ValueId s = emit_op(
      g, ops, OpKind::Mul,
      {emit_op(g, ops, OpKind::Matmul, {op.inputs[0], op.inputs[1]}), scalar(g, ops, op.attrs.get_float("scale"), dt)});
  if (op.inputs.size() > 3) s = emit_op(g, ops, OpKind::Add, {s, op.inputs[3]});
  const ValueId p = emit_op(g, ops, OpKind::Softmax, {s}, {{"axis", int64_t{-1}}});
  emit_op(g, ops, OpKind::Matmul, {p, op.inputs[2]}, {}, op.output);
}

std::map<std::string, Tensor> by_name(const Graph& g, const std::vector<Tensor>& outputs) {
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < outputs.size(); ++i) named[g.outputs[i].name] = outputs[i];
  return named;
}

}  // namespace

Graph expand_composites(const Graph& graph) {
  Graph g = graph;
  std::vector<Op> ops;
  for (const Op& op : graph.ops) {
    if (op.kind == OpKind::RmsNorm) {
      expand_rms_norm(g, op, ops);
    } else if (op.kind == OpKind::Sdpa) {
      expand_sdpa(g, op, ops);
    } else {
      ops.push_back(op);
    }
  }
  g.ops = std::move(ops);
  return g;
}

std::map<std::string, Tensor> run_training_reference(const compiler::TrainingGraph& training,
                                                     runtime::NamedTensors inputs, const Tensor& seed) {
  inputs[compiler::kSeedGradientInput] = seed;
  const Graph g = expand_composites(training.graph);
  return by_name(g, runtime::run_reference(g, inputs));
}

std::map<std::string, Tensor> run_training_device(const compiler::TrainingGraph& training, runtime::NamedTensors inputs,
                                                  const Tensor& seed, int level) {
  inputs[compiler::kSeedGradientInput] = seed;
  compiler::CompileOptions options;
  options.optimization_level = level;
  const DeviceProgram program = compiler::compile(training.graph, options);
  runtime::SimulatedChip chip({});
  return by_name(training.graph, chip.execute(program, inputs));
}

double dot(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_f32_vector(), y = b.to_f32_vector();
  double sum = 0.0;
  for (size_t i = 0; i < x.size(); ++i) sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  return sum;
}

double norm(const Tensor& a) { return std::sqrt(dot(a, a)); }

double pcc(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_f32_vector(), y = b.to_f32_vector();
  const auto n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 && syy == 0) return 1.0;
  return sxy / std::sqrt(sxx * syy);
}

Graph with_weight(const Graph& graph, const std::string& name, const Tensor& data) {
  Graph g = graph;
  Param* p = g.find_param(name);
  p->init.reset();
  p->data = data;
  return g;
}

}  // namespace meshtest::testing
