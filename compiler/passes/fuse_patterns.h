// The fusion patterns of the `fuse` pass (private to compiler/passes/). Each
// matcher looks at one root op and, when the ops feeding it form its pattern,
// returns the fused op that replaces the root and every op it subsumes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/graph_rewrite.h"

namespace meshtest::compiler::passes {

struct Fusion {
  std::string pattern;  // statistic name: "gelu", "rms_norm", ...
  OpKind kind;
  std::vector<ValueId> inputs;
  Attrs attrs;
  std::vector<const Op*> matched;  // every op subsumed, root included
};

// Constants in decomposed formulas are compared with this relative tolerance
// (models write them in f32 or f64).
bool near(double a, double b);
// The reduced axis of a single-axis keepdim reduction of `op` over the last dim, if it is one.
bool reduces_last_axis(const Graph& graph, const Op& op);

std::optional<Fusion> match_gelu(const Graph& graph, const DefUse& du, const Op& root);        // fuse_pass.cpp
std::optional<Fusion> match_softmax(const Graph& graph, const DefUse& du, const Op& root);     // fuse_pass.cpp
std::optional<Fusion> match_layer_norm(const Graph& graph, const DefUse& du, const Op& root);  // fuse_norms.cpp
std::optional<Fusion> match_rms_norm(const Graph& graph, const DefUse& du, const Op& root);    // fuse_norms.cpp
std::optional<Fusion> match_sdpa(const Graph& graph, const DefUse& du, const Op& root);        // fuse_attention.cpp

}  // namespace meshtest::compiler::passes
