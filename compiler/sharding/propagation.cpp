// The shard pass's propagation driver: parameters, then each op through the
// rule its table entry gives (compiler/sharding/sharding_rules.cpp), falling
// back to gathering every operand, then the outputs.
#include "compiler/sharding/propagation.h"

#include "compiler/sharding/sharding_rules.h"
#include "core/error.h"

namespace meshtest::compiler::sharding {

namespace {

class Propagation {
 public:
  Propagation(const Graph& global, const ShardingRequest& request, ShardingPlan& plan)
      : global_(global), request_(request), cx_(global, request.mesh, plan), is_weight_(global.values.size(), false) {
    for (const Param& p : global.params) is_weight_[static_cast<size_t>(p.value)] = p.kind == ParamKind::Weight;
  }

  Graph run() {
    Graph& out = cx_.local_graph();
    out.name = global_.name;
    for (const Param& p : global_.params) add_param(p);
    for (size_t i = 0; i < global_.ops.size(); ++i) shard_op(i);
    for (const GraphOutput& o : global_.outputs) {
      Local l = cx_.local(o.value);
      if (const auto it = request_.output_specs.find(o.name); it != request_.output_specs.end()) {
        l = leave_as(o, l, to_sharding("output '" + o.name + "'", global_.type(o.value), it->second));
      }
      out.outputs.push_back({o.name, l.value});
      if (!l.sharding.is_replicated()) cx_.plan().outputs[o.name] = l.sharding;
    }
    return std::move(out);
  }

 private:
  void add_param(const Param& p) {
    const TensorType& type = global_.type(p.value);
    Sharding s = Sharding::replicated(type.shape.size());
    if (const auto it = request_.specs.find(p.name); it != request_.specs.end()) {
      s = to_sharding("param '" + p.name + "'", type, it->second);
    }
    Graph& out = cx_.local_graph();
    Param local = p;
    local.value = out.add_value({type.dtype, local_shape(cx_.mesh(), type.shape, s)}, p.name);
    if (!s.is_replicated()) {
      local.data = Tensor();
      local.init.reset();
      cx_.plan().params[p.name] = s;
    }
    out.params.push_back(std::move(local));
    cx_.local(p.value) = {out.params.back().value, s};
  }

  // `what`: "param 'wq'" or "output 'grad/wq'", for messages.
  Sharding to_sharding(const std::string& what, const TensorType& type, const NamedPartitionSpec& spec) {
    const Mesh& mesh = cx_.mesh();
    if (spec.size() > type.shape.size()) {
      throw CompileError("shard spec of " + what + " has " + std::to_string(spec.size()) + " dims, it is " +
                         type_to_string(type));
    }
    Sharding s = Sharding::replicated(type.shape.size());
    std::vector<bool> used(mesh.shape.size(), false);
    for (size_t d = 0; d < spec.size(); ++d) {
      for (const std::string& axis : spec[d]) {
        const int a = mesh.axis_index(axis);
        if (a < 0) throw CompileError("shard spec of " + what + ": mesh " + mesh.text() + " has no axis '" + axis + "'");
        if (used[static_cast<size_t>(a)]) throw CompileError("shard spec of " + what + " uses axis '" + axis + "' twice");
        used[static_cast<size_t>(a)] = true;
        s.dims[d].push_back(a);
      }
    }
    try {
      local_shape(mesh, type.shape, s);
    } catch (const Error& e) {
      cx_.plan().fallbacks.push_back(what + ": " + e.what() + "; kept replicated");
      return Sharding::replicated(type.shape.size());
    }
    return s;
  }

  // Output `o` (now `l`) in split `want`: cut in place from whole dims,
  // gathered first where it is split otherwise.
  Local leave_as(const GraphOutput& o, Local l, const Sharding& want) {
    if (const std::optional<ValueId> v = cx_.split_to(o.value, l, want)) return {*v, want};
    l = cx_.gather(l);
    return {*cx_.split_to(o.value, l, want), want};
  }

  void shard_op(size_t index) {
    const Op& op = global_.ops[index];
    std::vector<Local> in;
    for (ValueId v : op.inputs) in.push_back(cx_.local(v));
    std::optional<Local> result;
    std::string why;
    if (const ShardingRule* rule = sharding_rules().find(op.kind)) {
      result = (*rule)(cx_, op, in, why);
      // A weight stored split (FSDP) over axes its op cannot use with the
      // other operands' splits: gathered at its use, as FSDP does, so the
      // activations keep their split (the batch) instead of every operand
      // being gathered; in training each weight gradient is then a partial
      // sum over the batch that leaves in its weight's split (reduce_scatter).
      std::string retry_why;
      if (!result && gather_split_weights(op, in)) result = (*rule)(cx_, op, in, retry_why);
    } else {
      why = "no sharding rule for " + std::string(op_name(op.kind));
    }
    if (!result) result = replicated_fallback(index, op, in, why);
    cx_.local(op.output) = std::move(*result);
  }

  // Gathers the operands of `op` that are split weight parameters; whether any was.
  bool gather_split_weights(const Op& op, std::vector<Local>& in) {
    bool gathered = false;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      if (!is_weight_[static_cast<size_t>(op.inputs[k])] || in[k].sharding.is_replicated()) continue;
      in[k] = cx_.gather(in[k]);
      gathered = true;
    }
    return gathered;
  }

  // Gathers every split operand and runs the op replicated.
  Local replicated_fallback(size_t index, const Op& op, std::vector<Local>& in, const std::string& why) {
    bool gathered = false;
    std::vector<ValueId> values;
    for (Local& l : in) {
      gathered = gathered || !l.sharding.is_replicated();
      l = cx_.gather(l);
      values.push_back(l.value);
    }
    if (gathered) cx_.plan().fallbacks.push_back(describe_op(global_, index) + ": " + why + "; gathered to replicated");
    return {cx_.emit(op.kind, values, op.attrs), Sharding::replicated(global_.type(op.output).shape.size())};
  }

  const Graph& global_;
  const ShardingRequest& request_;
  ShardContext cx_;
  std::vector<bool> is_weight_;  // global value -> a weight parameter
};

}  // namespace

Graph propagate_shardings(const Graph& global, const ShardingRequest& request, ShardingPlan& plan) {
  return Propagation(global, request, plan).run();
}

}  // namespace meshtest::compiler::sharding
