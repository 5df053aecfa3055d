// Attention pattern of the `fuse` pass:
//   matmul(softmax(matmul(q, kt) * scale [+ mask], last dim), v)
//     -> sdpa(q, kt, v[, mask]){scale}
// The scale may be a multiply or a divide by a scalar constant, or absent.
// Under the fuse_sdpa_divisor_as_scale mutant (core/mutation.h) a divide by
// c gives scale c.
#include "compiler/passes/fuse_patterns.h"
#include "core/mutation.h"

namespace meshtest::compiler::passes {

namespace {

// matmul(q, kt) [* c | / c]; returns the matmul and the scale.
std::optional<std::pair<const Op*, double>> match_scores(const DefUse& du, ValueId v, std::vector<const Op*>& matched) {
  double scale = 1.0;
  for (OpKind kind : {OpKind::Mul, OpKind::Div}) {
    const Op* op = du.def(v, kind);
    if (op == nullptr) continue;
    const auto c = du.constant_value(op->inputs[1]);
    if (!c || *c == 0.0) return std::nullopt;
    scale = kind == OpKind::Mul || mutant_active(MutantId::FuseSdpaDivisorAsScale) ? *c : 1.0 / *c;
    matched.push_back(op);
    v = op->inputs[0];
    break;
  }
  const Op* mm = du.def(v, OpKind::Matmul);
  if (mm == nullptr) return std::nullopt;
  matched.push_back(mm);
  return std::make_pair(mm, scale);
}

}  // namespace

std::optional<Fusion> match_sdpa(const Graph& graph, const DefUse& du, const Op& root) {
  if (root.kind != OpKind::Matmul) return std::nullopt;
  const Op* softmax = du.def(root.inputs[0], OpKind::Softmax);
  if (softmax == nullptr) return std::nullopt;
  const auto rank = static_cast<int64_t>(graph.type(softmax->output).shape.size());
  const int64_t axis = softmax->attrs.get_int("axis", -1);
  if (axis != -1 && axis != rank - 1) return std::nullopt;
  std::vector<const Op*> matched{&root, softmax};
  ValueId mask = kNoValue;
  ValueId scores = softmax->inputs[0];
  if (const Op* add = du.def(scores, OpKind::Add)) {
    for (size_t i = 0; i < 2; ++i) {
      std::vector<const Op*> trial = matched;
      if (match_scores(du, add->inputs[i], trial)) {
        mask = add->inputs[1 - i];
        scores = add->inputs[i];
        matched.push_back(add);
        break;
      }
    }
  }
  const auto s = match_scores(du, scores, matched);
  if (!s) return std::nullopt;
  Fusion f{"sdpa",
           OpKind::Sdpa,
           {s->first->inputs[0], s->first->inputs[1], root.inputs[1]},
           {{"scale", s->second}},
           matched};
  if (mask != kNoValue) f.inputs.push_back(mask);
  return f;
}

}  // namespace meshtest::compiler::passes
