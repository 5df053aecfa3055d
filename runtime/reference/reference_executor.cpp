// The CPU reference executor: binds inputs, materializes weights on first use
// (floats widened to f32, f64 kept), runs ops in graph order through the reference kernels,
// frees every intermediate after its last use, and wraps any failure as
// RuntimeError("op #N name: ...").
#include "runtime/reference/reference_executor.h"

#include <limits>
#include <new>

#include "core/error.h"

namespace meshtest::runtime {

namespace reference {

DType held_dtype(DType declared) {
  if (declared == DType::F64) return DType::F64;
  return is_floating(declared) ? DType::F32 : declared;
}

bool reads_operand_bits(OpKind kind) {
  return kind == OpKind::BitcastConvert || kind == OpKind::ReducePrecision || kind == OpKind::NextAfter;
}

}  // namespace reference

namespace {

using reference::held_dtype;

// Converts a tensor to the way the reference holds a value of `declared` dtype.
Tensor widen(const Tensor& t, DType declared) { return t.to(held_dtype(declared)); }

// An op result of declared dtype f16 (computed in f32) rounded to f16 values,
// so the next op sees what an f16 tensor holds; bf16 results too when
// `round_bf16` (ReferenceOptions). Otherwise bf16 and bfp8_b results stay
// unrounded f32: the golden of the device's formats.
Tensor round_to_declared(Tensor result, DType declared, bool round_bf16 = false) {
  const bool rounds = declared == DType::F16 || (round_bf16 && declared == DType::BF16);
  if (!rounds || result.dtype() != DType::F32) return result;
  return result.to(declared).to(DType::F32);
}

Tensor dispatch(const Op& op, const std::vector<Tensor>& in) {
  const OpTable<ReferenceKernel>& kernels = reference_kernels();
  if (const ReferenceKernel* kernel = kernels.find(op.kind)) return (*kernel)(op, in);
  const std::string_view reason = kernels.reason(op.kind);
  throw RuntimeError(reason.empty() ? "the reference has no kernel for this op" : std::string(reason));
}

class ReferenceRun {
 public:
  ReferenceRun(const Graph& graph, const NamedTensors& inputs, const ReferenceOpHook* hook,
               const ReferenceOptions& options = {})
      : graph_(graph),
        hook_(hook),
        options_(options),
        env_(graph.values.size()),
        present_(graph.values.size(), false),
        param_of_value_(graph.values.size(), -1),
        last_use_(graph.values.size(), -1) {
    for (size_t p = 0; p < graph.params.size(); ++p) {
      const ValueId v = graph.params[p].value;
      if (v >= 0 && static_cast<size_t>(v) < graph.values.size())
        param_of_value_[static_cast<size_t>(v)] = static_cast<int64_t>(p);
    }
    // Last use of every value, computed once; graph outputs live to the end.
    for (size_t i = 0; i < graph.ops.size(); ++i) {
      for (ValueId v : graph.ops[i].inputs) {
        if (valid(v)) last_use_[static_cast<size_t>(v)] = static_cast<int64_t>(i);
      }
    }
    for (const GraphOutput& o : graph.outputs) {
      if (valid(o.value)) last_use_[static_cast<size_t>(o.value)] = std::numeric_limits<int64_t>::max();
    }
    bind_inputs(inputs);
  }

  std::vector<Tensor> run() {
    for (size_t i = 0; i < graph_.ops.size(); ++i) run_op(i);
    std::vector<Tensor> outputs;
    outputs.reserve(graph_.outputs.size());
    for (const GraphOutput& o : graph_.outputs) {
      try {
        outputs.push_back(fetch(o.value));
      } catch (const std::exception& e) {
        throw RuntimeError("output '" + o.name + "': " + e.what());
      }
    }
    return outputs;
  }

 private:
  bool valid(ValueId v) const { return v >= 0 && static_cast<size_t>(v) < graph_.values.size(); }

  void bind_inputs(const NamedTensors& inputs) {
    for (const Param* p : graph_.inputs()) {
      const TensorType& declared = graph_.type(p->value);
      const auto it = inputs.find(p->name);
      if (it == inputs.end()) throw RuntimeError("missing input '" + p->name + "' (" + type_to_string(declared) + ")");
      const Tensor& given = it->second;
      if (given.shape() != declared.shape) {
        throw RuntimeError("input '" + p->name + "' has shape " + shape_to_string(given.shape()) + ", expected " +
                           shape_to_string(declared.shape));
      }
      if (is_floating(given.dtype()) != is_floating(declared.dtype)) {
        throw RuntimeError("input '" + p->name + "' has dtype " + std::string(dtype_name(given.dtype())) +
                           ", expected " + std::string(dtype_name(declared.dtype)));
      }
      store(p->value, widen(given, declared.dtype));
    }
  }

  void store(ValueId v, Tensor t) {
    env_[static_cast<size_t>(v)] = std::move(t);
    present_[static_cast<size_t>(v)] = true;
  }

  // The tensor of value `v`; weights are materialized and widened on first use.
  const Tensor& fetch(ValueId v) {
    if (!valid(v)) throw RuntimeError("operand %" + std::to_string(v) + " is not a value of the graph");
    const size_t i = static_cast<size_t>(v);
    if (!present_[i]) {
      const int64_t p = param_of_value_[i];
      if (p < 0 || graph_.params[static_cast<size_t>(p)].kind != ParamKind::Weight) {
        throw RuntimeError("operand %" + std::to_string(v) + " is not defined before use");
      }
      const Param& param = graph_.params[static_cast<size_t>(p)];
      const TensorType& declared = graph_.type(v);
      store(v, widen(materialize(param, declared), declared.dtype));
    }
    return env_[i];
  }

  void release(ValueId v) {
    env_[static_cast<size_t>(v)] = Tensor();
    present_[static_cast<size_t>(v)] = false;
  }

  void run_op(size_t index) {
    const Op& op = graph_.ops[index];
    const std::string where = describe_op(graph_, index);
    try {
      std::vector<Tensor> in;
      std::vector<TensorType> types;
      in.reserve(op.inputs.size());
      const bool exact_bits = reference::reads_operand_bits(op.kind);
      for (ValueId v : op.inputs) {
        in.push_back(exact_bits ? fetch(v).to(graph_.type(v).dtype) : fetch(v));
        types.push_back({in.back().dtype(), in.back().shape()});
      }
      // Re-check the op against the tensors actually held, so a malformed
      // graph fails here instead of inside a kernel.
      const TensorType expected = infer_type(op.kind, types, op.attrs);
      if (!valid(op.output)) throw RuntimeError("result value is not a value of the graph");
      const TensorType& declared = graph_.type(op.output);
      if (expected.shape != declared.shape) {
        throw RuntimeError("operands give result " + type_to_string(expected) + " but the graph declares " +
                           type_to_string(declared));
      }
      Tensor result = dispatch(op, in);
      if (exact_bits) result = widen(result, declared.dtype);
      result = round_to_declared(std::move(result), declared.dtype, options_.round_bf16_results);
      check_held(result, declared, "kernel");
      if (hook_ && *hook_) {
        (*hook_)(index, op, in, result);
        check_held(result, declared, "op hook");
      }
      in.clear();
      store(op.output, std::move(result));
    } catch (const OutOfMemoryError& e) {
      throw OutOfMemoryError(where + ": " + e.what());
    } catch (const std::bad_alloc&) {
      throw OutOfMemoryError(where + ": host allocation failed");
    } catch (const std::exception& e) {
      throw RuntimeError(where + ": " + e.what());
    }
    // Free what this op was the last to read, and results nobody reads.
    for (ValueId v : op.inputs) {
      if (last_use_[static_cast<size_t>(v)] == static_cast<int64_t>(index)) release(v);
    }
    if (last_use_[static_cast<size_t>(op.output)] < 0) release(op.output);
  }

  static void check_held(const Tensor& result, const TensorType& declared, const char* who) {
    if (result.shape() != declared.shape || result.dtype() != held_dtype(declared.dtype)) {
      throw RuntimeError(std::string(who) + " produced " + std::string(dtype_name(result.dtype())) +
                         shape_to_string(result.shape()) + " for declared " + type_to_string(declared));
    }
  }

  const Graph& graph_;
  const ReferenceOpHook* hook_;
  ReferenceOptions options_;
  std::vector<Tensor> env_;
  std::vector<bool> present_;
  std::vector<int64_t> param_of_value_;
  std::vector<int64_t> last_use_;  // op index of the last read; -1: never read; max: graph output
};

}  // namespace

bool reads_operand_as_held(OpKind kind, size_t slot, DType dtype) {
  if (slot != 1) return false;
  if (kind == OpKind::Embedding) return dtype != DType::BFP8_B;  // a row copy (bfp8_b rows share blocks)
  return (kind == OpKind::Linear || kind == OpKind::Conv2d) && dtype == DType::BF16;
}

Tensor run_reference_op(const Op& op, const std::vector<Tensor>& operands) {
  std::vector<Tensor> in;
  std::vector<TensorType> types;
  bool touches_f16 = op.attrs.has("dtype") && op.attrs.get_string("dtype") == "f16";
  in.reserve(operands.size());
  for (size_t slot = 0; slot < operands.size(); ++slot) {
    const Tensor& t = operands[slot];
    const bool as_held = reference::reads_operand_bits(op.kind) || reads_operand_as_held(op.kind, slot, t.dtype());
    in.push_back(as_held ? t : widen(t, t.dtype()));
    types.push_back({t.dtype(), t.shape()});
    touches_f16 = touches_f16 || t.dtype() == DType::F16;
  }
  Tensor result = dispatch(op, in);
  if (op.kind == OpKind::Embedding) result = widen(result, result.dtype());  // rows gathered as the table is held
  // Only an op that reads or makes f16 can have an f16 result to round.
  if (!touches_f16 && !reference::reads_operand_bits(op.kind)) return result;
  const DType declared = infer_type(op.kind, types, op.attrs).dtype;
  return round_to_declared(widen(result, declared), declared);
}

std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs) {
  return ReferenceRun(graph, inputs, nullptr).run();
}

std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs, const ReferenceOpHook& hook) {
  return ReferenceRun(graph, inputs, &hook).run();
}

std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs, const ReferenceOptions& options) {
  return ReferenceRun(graph, inputs, nullptr, options).run();
}

}  // namespace meshtest::runtime
