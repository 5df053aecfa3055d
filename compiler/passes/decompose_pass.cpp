// Pass `decompose`: rewrites ops the device lacks into primitives it has.
// The simulated chip, like Tensix-class hardware, has no batch-norm unit:
//   s = scale * rsqrt(var + eps)
// and then, by where mean and var come from:
//  - running statistics (inference form: weights): a per-channel scale and
//    shift, t = bias - mean * s, y = x * reshape(s, [C,1,1]) + reshape(t,
//    [C,1,1]), whose weight-only parts const-eval folds away at level >= 1;
//  - batch statistics (training form, models/common/batch_norm.h: computed
//    from x): centred first, y = (x - reshape(mean)) * reshape(s) +
//    reshape(bias). Folding the mean into a shift would cancel in bf16
//    (x * s and mean * s are large where |mean| >> std, their difference is
//    not), and there is nothing to fold at compile time anyway.
// Mutants (core/mutation.h): batch_norm_mean_ignored drops the mean (t = bias;
// no centring); batch_norm_shift_uses_gamma and batch_norm_eps_1e_3 break the
// fold; batch_norm_running_stats_in_training normalises a training-form
// batch_norm with its layer's running statistics (the weights
// <prefix>.running_mean / running_var beside its <prefix>.weight), as a
// device that ignored the training mode would.
#include <string>

#include "compiler/graph_rewrite.h"
#include "core/mutation.h"
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

namespace {

const Param* param_of(const Graph& graph, ValueId v) {
  for (const Param& p : graph.params) {
    if (p.value == v) return &p;
  }
  return nullptr;
}

// The running statistic `stat` ("running_mean") of the layer whose gamma is
// `scale` (a weight "<prefix>.weight"), or kNoValue.
ValueId running_statistic(const Graph& graph, ValueId scale, const std::string& stat) {
  const Param* gamma = param_of(graph, scale);
  const std::string suffix = ".weight";
  if (gamma == nullptr || gamma->name.size() <= suffix.size() ||
      gamma->name.compare(gamma->name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return kNoValue;
  }
  const Param* p = graph.find_param(gamma->name.substr(0, gamma->name.size() - suffix.size() + 1) + stat);
  return p == nullptr ? kNoValue : p->value;
}

void decompose_batch_norm(Graph& graph, const Op& bn, std::vector<Op>& out) {
  const ValueId x = bn.inputs[0];
  const DType dtype = graph.type(x).dtype;
  const int64_t channels = graph.type(x).shape[1];
  auto emit = [&](OpKind kind, std::vector<ValueId> in, Attrs attrs = {}) {
    return emit_op(graph, out, kind, std::move(in), std::move(attrs));
  };
  ValueId mean = bn.inputs[3], var = bn.inputs[4];
  const bool batch_statistics = param_of(graph, mean) == nullptr;
  if (batch_statistics && mutant_active(MutantId::BatchNormRunningStatsInTraining)) {
    const ValueId running_mean = running_statistic(graph, bn.inputs[1], "running_mean");
    const ValueId running_var = running_statistic(graph, bn.inputs[1], "running_var");
    if (running_mean != kNoValue && running_var != kNoValue) {
      mean = running_mean;
      var = running_var;
    }
  }
  const double eps_value =
      mutant_active(MutantId::BatchNormEpsWrong) ? 1e-3 : bn.attrs.get_float("eps", 1e-5);
  const ValueId eps =
      emit(OpKind::Constant, {}, {{"value", eps_value}, {"dtype", std::string(dtype_name(dtype))}, {"shape", Shape{}}});
  const ValueId inv_std = emit(OpKind::Rsqrt, {emit(OpKind::Add, {var, eps})});
  const ValueId s = emit(OpKind::Mul, {bn.inputs[1], inv_std});
  const Attrs per_channel{{"shape", Shape{channels, 1, 1}}};
  const bool mean_ignored = mutant_active(MutantId::BatchNormMeanIgnored);
  if (batch_statistics) {
    const ValueId centered = mean_ignored ? x : emit(OpKind::Sub, {x, emit(OpKind::Reshape, {mean}, per_channel)});
    const ValueId scaled = emit(OpKind::Mul, {centered, emit(OpKind::Reshape, {s}, per_channel)});
    emit_op(graph, out, OpKind::Add, {scaled, emit(OpKind::Reshape, {bn.inputs[2]}, per_channel)}, {}, bn.output);
    return;
  }
  const ValueId shift_scale = mutant_active(MutantId::BatchNormShiftUsesGamma) ? bn.inputs[1] : s;
  const ValueId t = mean_ignored ? bn.inputs[2]
                                 : emit(OpKind::Sub, {bn.inputs[2], emit(OpKind::Mul, {mean, shift_scale})});
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
