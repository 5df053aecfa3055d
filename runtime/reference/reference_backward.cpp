// The reference backward's driver: decides which values carry a gradient
// (reachable from a weight and reaching the output through differentiable
// operands), runs the forward once keeping exactly the values the gradient
// kernels read, then walks the ops in reverse, accumulating gradients per
// value and freeing each one once its producer has consumed it.
#include "runtime/reference/reference_backward.h"

#include <new>

#include "core/error.h"
#include "runtime/reference/reference_backward_kernels.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime {

namespace {

namespace ref = reference;
namespace grad = reference::grad;

size_t at(ValueId v) { return static_cast<size_t>(v); }

grad::Grads backward_op(const Op& op, const std::vector<Tensor>& in, const Tensor& y, const Tensor& dy,
                        const grad::Wanted& want) {
  const ReferenceGradient* gradient = reference_gradients().find(op.kind);
  if (gradient == nullptr || gradient->kernel == nullptr) throw RuntimeError("the reference has no gradient for this op");
  return gradient->kernel(GradientArgs{op, in, y, dy, want});
}

class ReferenceBackward {
 public:
  ReferenceBackward(const Graph& graph, std::string_view output)
      : graph_(graph),
        reaches_(graph.values.size(), false),
        requires_(graph.values.size(), false),
        grads_(graph.values.size()) {
    output_ = find_differentiated(output);
    diff_.reserve(graph.ops.size());
    for (const Op& op : graph.ops) diff_.push_back(reference_differentiable_operands(graph, op));
    // Forward: values that depend on a float weight through differentiable operands.
    for (const Param* w : graph.weights()) requires_[at(w->value)] = is_floating(graph.type(w->value).dtype);
    for (size_t i = 0; i < graph.ops.size(); ++i) {
      const Op& op = graph.ops[i];
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (diff_[i][k] && requires_[at(op.inputs[k])]) requires_[at(op.output)] = true;
      }
    }
    // Backward: values the output depends on through differentiable operands.
    reaches_[at(output_->value)] = true;
    for (size_t i = graph.ops.size(); i-- > 0;) {
      const Op& op = graph.ops[i];
      if (!reaches_[at(op.output)]) continue;
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (diff_[i][k]) reaches_[at(op.inputs[k])] = true;
      }
    }
  }

  ReferenceTraining run(const NamedTensors& inputs, const Tensor& seed, const ReferenceOpHook& hook,
                        const std::vector<std::string>& kept_outputs) {
    const TensorType& out_type = graph_.type(output_->value);
    if (seed.shape() != out_type.shape || !is_floating(seed.dtype())) {
      throw RuntimeError("seed gradient " + std::string(dtype_name(seed.dtype())) + shape_to_string(seed.shape()) +
                         " does not match output '" + output_->name + "' " + type_to_string(out_type));
    }
    std::vector<ValueId> kept_values;
    for (const std::string& name : kept_outputs) kept_values.push_back(find_output(name)->value);
    run_forward(inputs, hook, kept_values);
    ReferenceTraining result;
    result.output = output_->name;
    result.forward = kept_.at(output_->value);
    for (ValueId v : kept_values) result.kept.push_back(kept_.at(v));
    if (active(output_->value)) grads_[at(output_->value)] = seed.to(DType::F32);
    for (size_t i = graph_.ops.size(); i-- > 0;) backward(i);
    for (const Param* w : graph_.weights()) {
      if (active(w->value)) {
        result.with_gradient.push_back(w->name);
        result.gradients.push_back(std::move(grads_[at(w->value)]));
      } else {
        result.without_gradient.push_back(w->name);
      }
    }
    return result;
  }

 private:
  bool active(ValueId v) const { return reaches_[at(v)] && requires_[at(v)]; }

  // The differentiated output: floating point.
  const GraphOutput* find_differentiated(std::string_view name) const {
    const GraphOutput* found = find_output(name);
    if (!is_floating(graph_.type(found->value).dtype)) {
      throw RuntimeError("output '" + found->name + "' is not floating point: it cannot be differentiated");
    }
    return found;
  }

  const GraphOutput* find_output(std::string_view name) const {
    if (graph_.outputs.empty()) throw RuntimeError("graph '" + graph_.name + "' has no outputs");
    const GraphOutput* found = name.empty() ? &graph_.outputs.front() : nullptr;
    for (const GraphOutput& o : graph_.outputs) {
      if (found == nullptr && o.name == name) found = &o;
    }
    if (found == nullptr) throw RuntimeError("graph '" + graph_.name + "' has no output '" + std::string(name) + "'");
    return found;
  }

  // One forward run whose outputs are the differentiated output, the kept
  // outputs and every operand and result the gradient kernels will read.
  void run_forward(const NamedTensors& inputs, const ReferenceOpHook& hook, const std::vector<ValueId>& kept_values) {
    Graph keep = graph_;
    keep.outputs.clear();
    std::vector<bool> listed(graph_.values.size(), false);
    auto add = [&](ValueId v) {
      if (listed[at(v)]) return;
      listed[at(v)] = true;
      keep.outputs.push_back({"%" + std::to_string(v), v});
    };
    add(output_->value);
    for (ValueId v : kept_values) add(v);
    for (const Op& op : graph_.ops) {
      if (!active(op.output)) continue;
      for (ValueId v : op.inputs) add(v);
      add(op.output);
    }
    std::vector<Tensor> values = run_reference(keep, inputs, hook);
    for (size_t i = 0; i < keep.outputs.size(); ++i) kept_.emplace(keep.outputs[i].value, std::move(values[i]));
  }

  void backward(size_t index) {
    const Op& op = graph_.ops[index];
    if (!active(op.output) || !grads_[at(op.output)].defined()) return;
    const Tensor dy = std::move(grads_[at(op.output)]);
    grads_[at(op.output)] = Tensor();
    try {
      grad::Wanted want(op.inputs.size());
      std::vector<Tensor> in;
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        want[k] = diff_[index][k] && active(op.inputs[k]);
        in.push_back(kept_.at(op.inputs[k]));
      }
      const grad::Grads grads = backward_op(op, in, kept_.at(op.output), dy, want);
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (!want[k]) continue;
        if (k >= grads.size() || !grads[k].defined() || grads[k].shape() != in[k].shape()) {
          throw RuntimeError("gradient kernel gave no " + shape_to_string(in[k].shape()) + " gradient for operand " +
                             std::to_string(k));
        }
        accumulate(op.inputs[k], grads[k]);
      }
    } catch (const OutOfMemoryError& e) {
      throw OutOfMemoryError(describe_op(graph_, index) + " (backward): " + e.what());
    } catch (const std::bad_alloc&) {
      throw OutOfMemoryError(describe_op(graph_, index) + " (backward): host allocation failed");
    } catch (const std::exception& e) {
      throw RuntimeError(describe_op(graph_, index) + " (backward): " + e.what());
    }
    // The forward result is not read again: its gradient has been consumed.
    kept_.erase(op.output);
  }

  void accumulate(ValueId v, const Tensor& g) {
    Tensor& slot = grads_[at(v)];
    slot = slot.defined() ? ref::binary(OpKind::Add, slot, g) : g;
  }

  const Graph& graph_;
  const GraphOutput* output_ = nullptr;
  std::vector<std::vector<bool>> diff_;  // per op, per operand
  std::vector<bool> reaches_;            // the output depends on the value
  std::vector<bool> requires_;           // the value depends on a weight
  std::vector<Tensor> grads_;            // accumulated gradient per value (undefined: none yet)
  std::map<ValueId, Tensor> kept_;       // forward values the gradient kernels read
};

}  // namespace

std::vector<bool> reference_differentiable_operands(const Graph& graph, const Op& op) {
  std::vector<bool> diff(op.inputs.size(), false);
  if (!is_floating(graph.type(op.output).dtype)) return diff;  // an integer result carries no gradient
  auto floating = [&](size_t k) { return is_floating(graph.type(op.inputs[k]).dtype); };
  const ReferenceGradient* gradient = reference_gradients().find(op.kind);
  if (gradient != nullptr && gradient->kernel == nullptr) return diff;  // no gradient flows through
  for (size_t k = 0; k < diff.size(); ++k) diff[k] = floating(k);  // embedding's integer ids are not
  return diff;
}

ReferenceTraining run_reference_training(const Graph& forward, const NamedTensors& inputs, std::string_view output,
                                         const Tensor& seed_gradient, const ReferenceOpHook& hook,
                                         const std::vector<std::string>& kept_outputs) {
  return ReferenceBackward(forward, output).run(inputs, seed_gradient, hook, kept_outputs);
}

std::vector<Tensor> reference_sgd_step(const Graph& forward, const ReferenceTraining& training, double learning_rate) {
  std::vector<Tensor> updated;
  for (size_t i = 0; i < training.with_gradient.size(); ++i) {
    const Param* p = forward.find_param(training.with_gradient[i]);
    if (p == nullptr) throw RuntimeError("sgd step: no weight '" + training.with_gradient[i] + "'");
    const std::vector<float> w = materialize(*p, forward.type(p->value)).to_f32_vector();
    const std::vector<float> g = training.gradients[i].to_f32_vector();
    if (w.size() != g.size()) throw RuntimeError("sgd step: gradient of '" + p->name + "' has the wrong size");
    std::vector<float> u(w.size());
    for (size_t k = 0; k < w.size(); ++k) {
      u[k] = static_cast<float>(static_cast<double>(w[k]) - learning_rate * static_cast<double>(g[k]));
    }
    updated.push_back(Tensor::from_f32(forward.type(p->value).shape, u));
  }
  return updated;
}

}  // namespace meshtest::runtime
