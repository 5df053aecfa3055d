// Pass `const-eval` (optimization level >= 1): folds weight-only subgraphs
// (ops whose operands are all weights, constants or folded values) into new
// weights computed on the host at compile time, so the device never runs
// them. Folded results used by device ops become weights (data in the value's dtype) named
// "const_eval.N" with data; lazy weights feeding a fold are materialized for
// it (subgraphs reading more than kMaxFoldElements are left alone, so a huge
// lazily initialized model compiles without materializing its weights).
#include <algorithm>
#include <map>

#include "compiler/const_eval_kernels.h"
#include "compiler/graph_rewrite.h"
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

namespace {

constexpr int64_t kMaxFoldElements = int64_t{1} << 24;

// The host kernels compute in f32: an op folds only when f32 holds its
// operands and result (f32, bf16, bfp8_b); integer, f16 and f64 ops keep
// their exact semantics on the device.
bool computes_in_f32(const Graph& graph, const Op& op) {
  auto held = [&](ValueId v) {
    const DType d = graph.type(v).dtype;
    return d == DType::F32 || d == DType::BF16 || d == DType::BFP8_B;
  };
  return held(op.output) && std::all_of(op.inputs.begin(), op.inputs.end(), held);
}

}  // namespace

void const_eval(CompileUnit& unit) {
  Graph& graph = unit.graph;
  std::map<ValueId, Tensor> known;  // values with host data (weights read, constants, folds)
  std::vector<bool> folded(graph.ops.size(), false);
  // A weight small enough to fold, or nullptr.
  auto foldable_weight = [&](ValueId v) -> const Param* {
    const Param* p = graph.find_param(graph.values[static_cast<size_t>(v)].name);
    if (p == nullptr || p->kind != ParamKind::Weight || p->value != v) return nullptr;
    return shape_numel(graph.type(v).shape) <= kMaxFoldElements ? p : nullptr;
  };
  auto host_value = [&](ValueId v) -> const Tensor* {
    if (auto it = known.find(v); it != known.end()) return &it->second;
    const Param* p = foldable_weight(v);
    return &known.emplace(v, materialize(*p, graph.type(v)).to(DType::F32)).first->second;
  };
  int64_t folds = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.kind == OpKind::Constant) {
      if (shape_numel(graph.type(op.output).shape) <= kMaxFoldElements) {
        known.emplace(op.output, host_constant(op.attrs, graph.type(op.output).shape));
      }
      continue;
    }
    if (op.inputs.empty() || !host_foldable(op.kind) || !computes_in_f32(graph, op)) continue;
    const bool all_constant = std::all_of(op.inputs.begin(), op.inputs.end(), [&](ValueId v) {
      return known.count(v) != 0 || foldable_weight(v) != nullptr;
    });
    if (!all_constant) continue;
    std::vector<const Tensor*> operands;
    for (ValueId v : op.inputs) operands.push_back(host_value(v));
    known.emplace(op.output, host_eval(op.kind, op.attrs, operands, graph.type(op.output).shape));
    folded[i] = true;
    ++folds;
  }
  // Every folded value a device op (or an output) reads becomes a weight.
  std::map<ValueId, ValueId> replacement;
  const DefUse du(graph);
  const size_t original_values = graph.values.size();
  auto replace = [&](ValueId v) {
    if (static_cast<size_t>(v) >= original_values) return v;
    const int64_t p = du.producer_index(v);
    if (p < 0 || !folded[static_cast<size_t>(p)]) return v;
    auto it = replacement.find(v);
    if (it != replacement.end()) return it->second;
    const std::string name = "const_eval." + std::to_string(replacement.size());
    const TensorType type = graph.type(v);
    const ValueId w = graph.add_value(type, name);
    Param param;
    param.name = name;
    param.kind = ParamKind::Weight;
    param.value = w;
    param.data = known.at(v).to(type.dtype);
    graph.params.push_back(std::move(param));
    return replacement.emplace(v, w).first->second;
  };
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (folded[i]) continue;
    for (ValueId& v : graph.ops[i].inputs) v = replace(v);
  }
  for (GraphOutput& o : graph.outputs) o.value = replace(o.value);
  const size_t removed = remove_dead_ops(graph);
  unit.count("const-eval.ops_folded", folds);
  unit.count("const-eval.weights_created", static_cast<int64_t>(replacement.size()));
  unit.count("const-eval.ops_removed", static_cast<int64_t>(removed));
}

}  // namespace meshtest::compiler::passes
