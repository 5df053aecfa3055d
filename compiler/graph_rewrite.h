// Helpers for graph-to-graph passes: def-use information, matching of op
// patterns (mul trees, scalar constants), in-place replacement of an op and
// removal of dead ops. Private to compiler/.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/graph.h"

namespace meshtest::compiler {

class DefUse {
 public:
  explicit DefUse(const Graph& graph);

  // Index of the op producing `v`, or -1 for params.
  int64_t producer_index(ValueId v) const { return producer_[static_cast<size_t>(v)]; }
  // The op producing `v` when it is of `kind`, else nullptr.
  const Op* def(ValueId v, OpKind kind) const;
  // Operand references to `v` from ops plus graph outputs naming it.
  int uses(ValueId v) const { return uses_[static_cast<size_t>(v)]; }
  // The value of a `constant` op (any shape), if `v` is one.
  std::optional<double> constant_value(ValueId v) const;
  // Flattens the product rooted at `v` through `mul` ops whose results are
  // used once: non-constant factors go to `factors`, constants multiply into
  // `coefficient`, the mul ops seen go to `ops`.
  void collect_factors(ValueId v, std::vector<ValueId>& factors, double& coefficient, std::vector<const Op*>& ops,
                       bool is_root = true) const;
  // True when every result of `matched` except `root`'s is used only by ops
  // in `matched` (fusing them loses no other consumer).
  bool only_used_inside(const std::vector<const Op*>& matched, const Op& root) const;

 private:
  const Graph& graph_;
  std::vector<int64_t> producer_;
  std::vector<int> uses_;
};

// Operand of the binary `op` that is not a scalar constant equal to `value`
// (within 1e-6 relative), when the other one is such a constant.
std::optional<ValueId> other_than_constant(const DefUse& du, const Op& op, double value);

// Replaces op `index` by `kind(inputs){attrs}`, keeping its result value.
// Returns false (and leaves the graph unchanged) when the new op's inferred
// type differs from the result's type or does not infer at all.
bool replace_op(Graph& graph, size_t index, OpKind kind, std::vector<ValueId> inputs, Attrs attrs);

// Appends `kind(inputs){attrs}` to `ops` with a new result value of the
// inferred type (or into `result` when given). Returns the result value.
ValueId emit_op(Graph& graph, std::vector<Op>& ops, OpKind kind, std::vector<ValueId> inputs, Attrs attrs = {},
                ValueId result = kNoValue);

// Removes ops whose result no op and no output uses. Returns how many.
size_t remove_dead_ops(Graph& graph);

}  // namespace meshtest::compiler
