// build_training_graph: reverse-mode autodiff over the graph IR. Marks the
// values a weight's gradient can flow through, walks the ops in reverse
// topological order from the seed gradient, applies each op's rule
// (compiler/autodiff/vjp_rules.cpp) and accumulates gradients of values used
// more than once with add. Gradients keep the forward value's dtype.
#include "compiler/autodiff.h"

#include <algorithm>
#include <cstdlib>

#include "compiler/autodiff/vjp.h"
#include "compiler/graph_rewrite.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace {

using autodiff::Emitter;
using autodiff::Grads;
using autodiff::VjpContext;

ValueId find_output(const Graph& graph, std::string_view name) {
  if (graph.outputs.empty()) throw CompileError("graph '" + graph.name + "' has no output to differentiate");
  if (name.empty()) return graph.outputs.front().value;
  for (const GraphOutput& o : graph.outputs) {
    if (o.name == name) return o.value;
  }
  throw CompileError("graph '" + graph.name + "' has no output named '" + std::string(name) + "'");
}

// Values a weight's gradient can reach: float weights, and float results of
// ops with a rule reading such a value. Non-differentiable ops stop it.
std::vector<bool> gradient_carriers(const Graph& graph) {
  std::vector<bool> carries(graph.values.size(), false);
  for (const Param& p : graph.params) {
    if (p.kind == ParamKind::Weight && is_floating(graph.type(p.value).dtype))
      carries[static_cast<size_t>(p.value)] = true;
  }
  for (const Op& op : graph.ops) {
    if (differentiability(op.kind) == Differentiability::NonDifferentiable) continue;
    if (!is_floating(graph.type(op.output).dtype)) continue;
    for (ValueId v : op.inputs) {
      if (carries[static_cast<size_t>(v)]) carries[static_cast<size_t>(op.output)] = true;
    }
  }
  return carries;
}

std::string wrong_vjp_op() {
  const char* env = std::getenv(kWrongVjpEnv);
  return env ? env : "";
}

class Backward {
 public:
  Backward(Graph& graph, const Graph& forward) : graph_(graph), forward_(forward), e_(graph) {}

  // Gradient of every value with respect to `output`, seeded with `seed`.
  std::vector<ValueId> run(ValueId output, ValueId seed) {
    const std::vector<bool> carries = gradient_carriers(graph_);
    grads_.assign(graph_.values.size(), kNoValue);
    grads_[static_cast<size_t>(output)] = seed;
    const std::string wrong = wrong_vjp_op();
    for (size_t i = forward_.ops.size(); i-- > 0;) {
      const Op op = graph_.ops[i];  // a copy: emitting ops grows graph_.ops
      const ValueId dy = grads_[static_cast<size_t>(op.output)];
      if (dy == kNoValue || !carries[static_cast<size_t>(op.output)]) continue;
      std::vector<bool> wanted(op.inputs.size(), false);
      bool any = false;
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        wanted[j] = carries[static_cast<size_t>(op.inputs[j])];
        any = any || wanted[j];
      }
      if (!any) continue;
      const autodiff::VjpRule rule = autodiff::find_vjp_rule(op.kind);
      if (rule == nullptr) {
        throw CompileError(
            describe_op(forward_, i) + ": no vector-Jacobian rule (" +
            (differentiability(op.kind) == Differentiability::AfterAutodiff
                 ? "made after autodiff: a backward op or a collective; graphs are differentiated once, before sharding"
                 : "op not classified in compiler/autodiff/vjp_rules.cpp") +
            ")");
      }
      VjpContext ctx{e_, op, dy, wanted};
      Grads g;
      try {
        g = rule(ctx);
      } catch (const CompileError& err) {
        throw CompileError(describe_op(forward_, i) + ": " + err.what());
      }
      if (op_name(op.kind) == wrong) make_wrong(g, wanted);
      for (size_t j = 0; j < op.inputs.size(); ++j) {
        if (wanted[j] && j < g.size() && g[j] != kNoValue) accumulate(i, op.inputs[j], g[j]);
      }
    }
    return grads_;
  }

 private:
  // The MESHTEST_TEST_WRONG_VJP hook (see autodiff.h).
  void make_wrong(Grads& g, const std::vector<bool>& wanted) {
    for (size_t j = 0; j < g.size(); ++j) {
      if (wanted[j] && g[j] != kNoValue) {
        g[j] = e_.scale(g[j], kWrongVjpFactor);
        return;
      }
    }
  }

  void accumulate(size_t op_index, ValueId value, ValueId grad) {
    const TensorType& want = graph_.type(value);
    if (graph_.type(grad) != want) {
      throw CompileError(describe_op(forward_, op_index) + ": rule gave a gradient of type " +
                         type_to_string(graph_.type(grad)) + " for an operand of type " + type_to_string(want));
    }
    ValueId& slot = grads_[static_cast<size_t>(value)];
    slot = slot == kNoValue ? grad : e_.add(slot, grad);
  }

  Graph& graph_;
  const Graph& forward_;
  Emitter e_;
  std::vector<ValueId> grads_;
};

}  // namespace

TrainingGraph build_training_graph(const Graph& forward, std::string_view output,
                                   const std::vector<std::string>& kept_outputs) {
  TrainingGraph result;
  Graph& graph = result.graph;
  graph = forward;
  const ValueId out = find_output(forward, output);
  result.output = output.empty() ? forward.outputs.front().name : std::string(output);
  if (graph.find_param(kSeedGradientInput) != nullptr) {
    throw CompileError("graph '" + forward.name + "' already has a parameter named '" + kSeedGradientInput + "'");
  }
  const ValueId seed = graph.add_value(graph.type(out), kSeedGradientInput);
  Param seed_param;
  seed_param.name = kSeedGradientInput;
  seed_param.kind = ParamKind::Input;
  seed_param.value = seed;
  graph.params.push_back(std::move(seed_param));

  const std::vector<ValueId> grads = Backward(graph, forward).run(out, seed);

  graph.outputs = {{result.output, out}};
  for (const Param& p : forward.params) {
    if (p.kind != ParamKind::Weight) continue;
    const ValueId g = grads[static_cast<size_t>(p.value)];
    if (g == kNoValue) {
      result.without_gradient.push_back(p.name);
      continue;
    }
    graph.outputs.push_back({kGradientPrefix + p.name, g});
    result.with_gradient.push_back(p.name);
  }
  for (const std::string& name : kept_outputs) {
    if (name == result.output) throw CompileError("the differentiated output '" + name + "' cannot also be kept");
    graph.outputs.push_back({name, find_output(forward, name)});
    result.kept_outputs.push_back(name);
  }
  remove_dead_ops(graph);
  verify_graph(graph);
  return result;
}

void append_sgd_step(TrainingGraph& training, double learning_rate) {
  Graph& graph = training.graph;
  autodiff::Emitter e(graph);
  std::vector<GraphOutput> updated;
  for (const std::string& name : training.with_gradient) {
    const Param* weight = graph.find_param(name);
    const std::string gradient_name = kGradientPrefix + name;
    const auto gradient = std::find_if(graph.outputs.begin(), graph.outputs.end(),
                                       [&](const GraphOutput& o) { return o.name == gradient_name; });
    if (weight == nullptr || gradient == graph.outputs.end()) {
      throw CompileError("sgd step: no weight or gradient output for '" + name + "'");
    }
    const ValueId w = weight->value;
    updated.push_back({kUpdatedPrefix + name, e.sub(w, e.scale(gradient->value, learning_rate))});
  }
  // After the gradients, before the kept outputs (which end the list).
  const auto kept = static_cast<std::ptrdiff_t>(training.kept_outputs.size());
  graph.outputs.insert(graph.outputs.end() - kept, updated.begin(), updated.end());
  verify_graph(graph);
}

}  // namespace meshtest::compiler
