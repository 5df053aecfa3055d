// Def-use analysis, pattern helpers and op replacement for graph passes.
#include "compiler/graph_rewrite.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace meshtest::compiler {

DefUse::DefUse(const Graph& graph) : graph_(graph), producer_(graph.values.size(), -1), uses_(graph.values.size(), 0) {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    producer_[static_cast<size_t>(op.output)] = static_cast<int64_t>(i);
    for (ValueId v : op.inputs) ++uses_[static_cast<size_t>(v)];
  }
  for (const GraphOutput& o : graph.outputs) ++uses_[static_cast<size_t>(o.value)];
}

const Op* DefUse::def(ValueId v, OpKind kind) const {
  const int64_t p = producer_[static_cast<size_t>(v)];
  if (p < 0) return nullptr;
  const Op& op = graph_.ops[static_cast<size_t>(p)];
  return op.kind == kind ? &op : nullptr;
}

std::optional<double> DefUse::constant_value(ValueId v) const {
  const Op* op = def(v, OpKind::Constant);
  if (op == nullptr) return std::nullopt;
  return op->attrs.get_float("value");
}

void DefUse::collect_factors(ValueId v, std::vector<ValueId>& factors, double& coefficient, std::vector<const Op*>& ops,
                             bool is_root) const {
  if (const auto c = constant_value(v)) {
    coefficient *= *c;
    return;
  }
  const Op* mul = def(v, OpKind::Mul);
  if (mul == nullptr || (!is_root && uses(v) != 1)) {
    factors.push_back(v);
    return;
  }
  ops.push_back(mul);
  for (ValueId in : mul->inputs) collect_factors(in, factors, coefficient, ops, false);
}

bool DefUse::only_used_inside(const std::vector<const Op*>& matched, const Op& root) const {
  for (const Op* op : matched) {
    if (op == &root) continue;
    int inside = 0;
    for (const Op* user : matched) {
      inside += static_cast<int>(std::count(user->inputs.begin(), user->inputs.end(), op->output));
    }
    if (inside != uses(op->output)) return false;
  }
  return true;
}

std::optional<ValueId> other_than_constant(const DefUse& du, const Op& op, double value) {
  if (op.inputs.size() != 2) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const auto c = du.constant_value(op.inputs[i]);
    if (c && std::abs(*c - value) <= 1e-6 * std::max(1.0, std::abs(value))) return op.inputs[1 - i];
  }
  return std::nullopt;
}

bool replace_op(Graph& graph, size_t index, OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
  std::vector<TensorType> types;
  for (ValueId v : inputs) types.push_back(graph.type(v));
  try {
    if (infer_type(kind, types, attrs) != graph.type(graph.ops[index].output)) return false;
  } catch (const CompileError&) {
    return false;
  }
  Op& op = graph.ops[index];
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.attrs = std::move(attrs);
  return true;
}

ValueId emit_op(Graph& graph, std::vector<Op>& ops, OpKind kind, std::vector<ValueId> inputs, Attrs attrs,
                ValueId result) {
  std::vector<TensorType> types;
  for (ValueId v : inputs) types.push_back(graph.type(v));
  const TensorType type = infer_type(kind, types, attrs);
  if (result == kNoValue) result = graph.add_value(type);
  ops.push_back({kind, std::move(inputs), result, std::move(attrs)});
  return result;
}

size_t remove_dead_ops(Graph& graph) {
  std::vector<int> uses(graph.values.size(), 0);
  for (const GraphOutput& o : graph.outputs) ++uses[static_cast<size_t>(o.value)];
  std::vector<bool> keep(graph.ops.size(), false);
  for (size_t i = graph.ops.size(); i-- > 0;) {
    const Op& op = graph.ops[i];
    if (uses[static_cast<size_t>(op.output)] == 0) continue;
    keep[i] = true;
    for (ValueId v : op.inputs) ++uses[static_cast<size_t>(v)];
  }
  std::vector<Op> kept;
  kept.reserve(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(graph.ops[i]));
  }
  const size_t removed = graph.ops.size() - kept.size();
  graph.ops = std::move(kept);
  return removed;
}

}  // namespace meshtest::compiler
