// Pass `fuse`: pattern rewrites of decomposed formulas into single ops:
// GELU (erf and tanh forms) and softmax into the device's own kernels,
// LayerNorm into layer_norm, and — with enable_composite_ops — RMSNorm and
// scaled-dot-product attention into the composite ops rms_norm and sdpa.
// Roots are visited last-to-first so the largest pattern wins; attention is
// matched in a second sweep, after softmax exists. Subsumed ops are removed.
// Under the fuse_gelu_tanh_marked_exact mutant (core/mutation.h) a matched
// tanh-form GELU is marked exact.
#include <algorithm>
#include <cmath>
#include <set>

#include "compiler/passes/fuse_patterns.h"
#include "compiler/passes/passes.h"
#include "core/mutation.h"

namespace meshtest::compiler::passes {

bool near(double a, double b) { return std::abs(a - b) <= 1e-4 * std::max(1.0, std::abs(b)); }

bool reduces_last_axis(const Graph& graph, const Op& op) {
  const auto axes = op.attrs.get_ints("axes", {});
  const auto rank = static_cast<int64_t>(graph.type(op.inputs[0]).shape.size());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1) && op.attrs.get_int("keepdim", 0) == 1;
}

namespace {

// x * 0.5 * (1 + erf(x / sqrt(2)))  or  x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
std::optional<Fusion> match_gelu_with(const DefUse& du, const Op& root, ValueId x, ValueId bracket) {
  const Op* add = du.def(bracket, OpKind::Add);
  if (add == nullptr) return std::nullopt;
  const auto inner = other_than_constant(du, *add, 1.0);
  if (!inner) return std::nullopt;
  Fusion f{"gelu", OpKind::Gelu, {x}, {}, {&root, add}};
  if (const Op* erf = du.def(*inner, OpKind::Erf)) {
    f.matched.push_back(erf);
    std::vector<ValueId> factors;
    double coefficient = 1.0;
    if (const Op* div = du.def(erf->inputs[0], OpKind::Div); div && du.constant_value(div->inputs[1])) {
      coefficient = 1.0 / *du.constant_value(div->inputs[1]);
      factors.push_back(div->inputs[0]);
      f.matched.push_back(div);
    } else {
      du.collect_factors(erf->inputs[0], factors, coefficient, f.matched);
    }
    if (factors != std::vector<ValueId>{x} || !near(coefficient, 1.0 / std::sqrt(2.0))) return std::nullopt;
    f.attrs.set("approximate", std::string("none"));
    return f;
  }
  const Op* tanh = du.def(*inner, OpKind::Tanh);
  if (tanh == nullptr) return std::nullopt;
  f.matched.push_back(tanh);
  std::vector<ValueId> outer;
  double c_outer = 1.0;
  du.collect_factors(tanh->inputs[0], outer, c_outer, f.matched);
  const Op* sum = outer.size() == 1 ? du.def(outer[0], OpKind::Add) : nullptr;
  if (sum == nullptr || !near(c_outer, std::sqrt(2.0 / M_PI))) return std::nullopt;
  f.matched.push_back(sum);
  for (size_t i = 0; i < 2; ++i) {
    if (sum->inputs[i] != x) continue;
    std::vector<ValueId> cube;
    double c_cube = 1.0;
    du.collect_factors(sum->inputs[1 - i], cube, c_cube, f.matched);
    if (cube == std::vector<ValueId>{x, x, x} && near(c_cube, 0.044715)) {
      f.attrs.set("approximate", std::string(mutant_active(MutantId::FuseGeluTanhMarkedExact) ? "none" : "tanh"));
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Fusion> match_gelu(const Graph&, const DefUse& du, const Op& root) {
  if (root.kind != OpKind::Mul) return std::nullopt;
  std::vector<ValueId> factors;
  std::vector<const Op*> muls;
  double coefficient = 1.0;
  du.collect_factors(root.output, factors, coefficient, muls);
  if (factors.size() != 2 || !near(coefficient, 0.5)) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    if (auto f = match_gelu_with(du, root, factors[i], factors[1 - i])) {
      for (const Op* m : muls) {
        if (m != &root) f->matched.push_back(m);
      }
      return f;
    }
  }
  return std::nullopt;
}

// exp(x - reduce_max(x)) / reduce_sum(exp(...)) over one axis (max optional).
std::optional<Fusion> match_softmax(const Graph& graph, const DefUse& du, const Op& root) {
  if (root.kind != OpKind::Div) return std::nullopt;
  const Op* exp = du.def(root.inputs[0], OpKind::Exp);
  const Op* sum = du.def(root.inputs[1], OpKind::ReduceSum);
  if (exp == nullptr || sum == nullptr || sum->inputs[0] != exp->output) return std::nullopt;
  const auto axes = sum->attrs.get_ints("axes", {});
  if (axes.size() != 1 || sum->attrs.get_int("keepdim", 0) != 1) return std::nullopt;
  Fusion f{"softmax", OpKind::Softmax, {exp->inputs[0]}, {{"axis", axes[0]}}, {&root, exp, sum}};
  if (const Op* sub = du.def(exp->inputs[0], OpKind::Sub)) {
    const Op* max = du.def(sub->inputs[1], OpKind::ReduceMax);
    if (max != nullptr && max->inputs[0] == sub->inputs[0] && max->attrs.get_ints("axes", {}) == axes) {
      f.inputs = {sub->inputs[0]};
      f.matched.push_back(sub);
      f.matched.push_back(max);
    }
  }
  (void)graph;
  return f;
}

void fuse(CompileUnit& unit) {
  Graph& graph = unit.graph;
  using Matcher = std::optional<Fusion> (*)(const Graph&, const DefUse&, const Op&);
  std::vector<Matcher> first = {match_gelu, match_softmax, match_layer_norm};
  if (unit.options.enable_composite_ops) first.push_back(match_rms_norm);
  std::vector<std::vector<Matcher>> sweeps = {first};
  if (unit.options.enable_composite_ops) sweeps.push_back({match_sdpa});
  for (const auto& matchers : sweeps) {
    const DefUse du(graph);
    std::set<const Op*> consumed;
    for (size_t i = graph.ops.size(); i-- > 0;) {
      const Op& root = graph.ops[i];
      if (consumed.count(&root)) continue;
      for (Matcher match : matchers) {
        std::optional<Fusion> f = match(graph, du, root);
        if (!f || !du.only_used_inside(f->matched, root)) continue;
        const size_t subsumed = f->matched.size();
        if (!replace_op(graph, i, f->kind, f->inputs, f->attrs)) continue;
        consumed.insert(f->matched.begin(), f->matched.end());
        unit.count("fuse." + f->pattern);
        unit.count("fuse.ops_fused", static_cast<int64_t>(subsumed) - 1);
        break;
      }
    }
    remove_dead_ops(graph);
  }
}

}  // namespace meshtest::compiler::passes
