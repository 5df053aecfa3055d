// Pass `decompose`: rewrites ops the device lacks into primitives it has.
// The simulated chip, like Tensix-class hardware, has no batch-norm unit:
// inference batch_norm becomes a per-channel scale and shift,
//   s = scale * rsqrt(var + eps), t = bias - mean * s,
//   y = x * reshape(s, [C,1,1]) + reshape(t, [C,1,1]),
// whose weight-only parts const-eval folds away at level >= 1.
// Under the batch_norm_mean_ignored mutant (core/mutation.h) t = bias.
#include "compiler/graph_rewrite.h"
#include "core/mutation.h"
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

namespace {

void decompose_batch_norm(Graph& graph, const Op& bn, std::vector<Op>& out) {
  const ValueId x = bn.inputs[0];
  const DType dtype = graph.type(x).dtype;
  const int64_t channels = graph.type(x).shape[1];
  auto emit = [&](OpKind kind, std::vector<ValueId> in, Attrs attrs = {}) {
    return emit_op(graph, out, kind, std::move(in), std::move(attrs));
  };
  const ValueId eps =
      emit(OpKind::Constant, {},
           {{"value", bn.attrs.get_float("eps", 1e-5)}, {"dtype", std::string(dtype_name(dtype))}, {"shape", Shape{}}});
  const ValueId inv_std = emit(OpKind::Rsqrt, {emit(OpKind::Add, {bn.inputs[4], eps})});
  const ValueId s = emit(OpKind::Mul, {bn.inputs[1], inv_std});
  const ValueId t = mutant_active(MutantId::BatchNormMeanIgnored)
                        ? bn.inputs[2]
                        : emit(OpKind::Sub, {bn.inputs[2], emit(OpKind::Mul, {bn.inputs[3], s})});
  const Attrs per_channel{{"shape", Shape{channels, 1, 1}}};
  const ValueId scaled = emit(OpKind::Mul, {x, emit(OpKind::Reshape, {s}, per_channel)});
  emit_op(graph, out, OpKind::Add, {scaled, emit(OpKind::Reshape, {t}, per_channel)}, {}, bn.output);
}

}  // namespace

void decompose(CompileUnit& unit) {
  Graph& graph = unit.graph;
  std::vector<Op> ops;
  ops.reserve(graph.ops.size());
  int64_t rewritten = 0;
  for (Op& op : graph.ops) {
    if (op.kind == OpKind::BatchNorm) {
      decompose_batch_norm(graph, op, ops);
      ++rewritten;
    } else {
      ops.push_back(std::move(op));
    }
  }
  graph.ops = std::move(ops);
  unit.count("decompose.batch_norm", rewritten);
}

}  // namespace meshtest::compiler::passes
