// Normalization patterns of the `fuse` pass: LayerNorm
//   (x - mean(x)) / sqrt(mean((x - mean)^2) + eps) * gamma + beta
// and RMSNorm in both common forms (HF Llama casts the normalized value back
// to the input dtype before the weight multiply; others multiply first and
// cast after):
//   w * cast(h * rsqrt(mean(h^2) + eps))   and   cast(h * rsqrt(mean(h^2) + eps) * w),
// h = cast(x) or x; sqrt-and-divide spellings are accepted too. Mutants
// (core/mutation.h): fuse_layer_norm_gamma_beta_swapped,
// fuse_rms_norm_eps_dropped.
#include <utility>

#include "compiler/passes/fuse_patterns.h"
#include "core/mutation.h"

namespace meshtest::compiler::passes {

namespace {

// 1 / sqrt(var + eps) as rsqrt(add) (or, with `divide`, sqrt(add) for a div).
std::optional<std::pair<ValueId, double>> match_inv_std(const DefUse& du, ValueId v, bool divide,
                                                        std::vector<const Op*>& matched) {
  const Op* root = du.def(v, divide ? OpKind::Sqrt : OpKind::Rsqrt);
  if (root == nullptr) return std::nullopt;
  const Op* add = du.def(root->inputs[0], OpKind::Add);
  if (add == nullptr) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    if (const auto eps = du.constant_value(add->inputs[i])) {
      matched.push_back(root);
      matched.push_back(add);
      return std::make_pair(add->inputs[1 - i], *eps);
    }
  }
  return std::nullopt;
}

struct Normalized {
  ValueId centered;  // the value normalized (x - mean for LayerNorm, h for RMSNorm)
  ValueId variance;
  double eps;
};

// centered * rsqrt(variance + eps) or centered / sqrt(variance + eps).
std::optional<Normalized> match_normalized(const DefUse& du, ValueId v, std::vector<const Op*>& matched) {
  for (OpKind kind : {OpKind::Mul, OpKind::Div}) {
    const Op* op = du.def(v, kind);
    if (op == nullptr) continue;
    const size_t orders = kind == OpKind::Mul ? 2 : 1;
    for (size_t i = 0; i < orders; ++i) {
      if (auto inv = match_inv_std(du, op->inputs[1 - i], kind == OpKind::Div, matched)) {
        matched.push_back(op);
        return Normalized{op->inputs[i], inv->first, inv->second};
      }
    }
  }
  return std::nullopt;
}

// mean(t * t) over the last dim, keepdim; returns t.
std::optional<ValueId> match_mean_square(const Graph& graph, const DefUse& du, ValueId v,
                                         std::vector<const Op*>& matched) {
  const Op* mean = du.def(v, OpKind::ReduceMean);
  if (mean == nullptr || !reduces_last_axis(graph, *mean)) return std::nullopt;
  const Op* square = du.def(mean->inputs[0], OpKind::Mul);
  if (square == nullptr || square->inputs[0] != square->inputs[1]) return std::nullopt;
  matched.push_back(mean);
  matched.push_back(square);
  return square->inputs[0];
}

// h * rsqrt(mean(h^2) + eps), h = cast(x) or x. Returns x and eps.
std::optional<std::pair<ValueId, double>> match_rms(const Graph& graph, const DefUse& du, ValueId v,
                                                    std::vector<const Op*>& matched) {
  const auto n = match_normalized(du, v, matched);
  if (!n) return std::nullopt;
  const auto h = match_mean_square(graph, du, n->variance, matched);
  if (!h || *h != n->centered) return std::nullopt;
  ValueId x = *h;
  if (const Op* cast = du.def(x, OpKind::Cast)) {
    matched.push_back(cast);
    x = cast->inputs[0];
  }
  return std::make_pair(x, mutant_active(MutantId::FuseRmsNormEpsDropped) ? 0.0 : n->eps);
}

}  // namespace

std::optional<Fusion> match_layer_norm(const Graph& graph, const DefUse& du, const Op& root) {
  if (root.kind != OpKind::Add) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const Op* scale = du.def(root.inputs[i], OpKind::Mul);
    if (scale == nullptr) continue;
    for (size_t j = 0; j < 2; ++j) {
      std::vector<const Op*> matched{&root, scale};
      const auto n = match_normalized(du, scale->inputs[j], matched);
      if (!n) continue;
      const Op* sub = du.def(n->centered, OpKind::Sub);
      const auto centered = match_mean_square(graph, du, n->variance, matched);
      if (sub == nullptr || !centered || *centered != n->centered) continue;
      const Op* mean = du.def(sub->inputs[1], OpKind::ReduceMean);
      if (mean == nullptr || mean->inputs[0] != sub->inputs[0] || !reduces_last_axis(graph, *mean)) continue;
      matched.push_back(sub);
      matched.push_back(mean);
      ValueId gamma = scale->inputs[1 - j], beta = root.inputs[1 - i];
      if (mutant_active(MutantId::FuseLayerNormGammaBetaSwapped)) std::swap(gamma, beta);
      return Fusion{"layer_norm",
                    OpKind::LayerNorm,
                    {sub->inputs[0], gamma, beta},
                    {{"eps", n->eps}},
                    matched};
    }
  }
  return std::nullopt;
}

std::optional<Fusion> match_rms_norm(const Graph& graph, const DefUse& du, const Op& root) {
  // cast(h * rsqrt(...) * w): the weight multiply happens before the cast.
  if (const Op* cast = root.kind == OpKind::Cast ? du.def(root.inputs[0], OpKind::Mul) : nullptr) {
    for (size_t i = 0; i < 2; ++i) {
      std::vector<const Op*> matched{&root, cast};
      if (auto rms = match_rms(graph, du, cast->inputs[i], matched)) {
        return Fusion{"rms_norm",
                      OpKind::RmsNorm,
                      {rms->first, cast->inputs[1 - i]},
                      {{"eps", rms->second}, {"form", std::string("cast_after_weight")}},
                      matched};
      }
    }
  }
  if (root.kind != OpKind::Mul) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    std::vector<const Op*> matched{&root};
    ValueId normalized = root.inputs[i];
    if (const Op* cast = du.def(normalized, OpKind::Cast)) {
      matched.push_back(cast);
      normalized = cast->inputs[0];
    }
    if (auto rms = match_rms(graph, du, normalized, matched)) {
      return Fusion{"rms_norm",
                    OpKind::RmsNorm,
                    {rms->first, root.inputs[1 - i]},
                    {{"eps", rms->second}, {"form", std::string("cast_before_weight")}},
                    matched};
    }
  }
  return std::nullopt;
}

}  // namespace meshtest::compiler::passes
