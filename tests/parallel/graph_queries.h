// Small questions the parallelism tests ask of a (sharded) graph.
#pragma once

#include "core/graph.h"

namespace meshtest::testing {

// How many ops of `kind` the graph has.
inline int count(const Graph& g, OpKind kind) {
  int n = 0;
  for (const Op& op : g.ops) n += op.kind == kind;
  return n;
}

}  // namespace meshtest::testing
