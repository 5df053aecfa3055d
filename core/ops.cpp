// Op lookups over the registry (core/op_def.h), result-type inference, and
// the shape helpers every type rule uses.
#include "core/ops.h"

#include <algorithm>

#include "core/op_def.h"
#include "core/ops/type_checks.h"

namespace meshtest {

namespace {

std::vector<OpKind> ops_where(bool (*keep)(const OpDef&)) {
  std::vector<OpKind> kinds;
  for (const OpDef& def : op_defs()) {
    if (keep(def)) kinds.push_back(def.kind);
  }
  return kinds;
}

}  // namespace

std::string type_to_string(const TensorType& type) {
  return std::string(dtype_name(type.dtype)) + shape_to_string(type.shape);
}

std::string_view op_name(OpKind kind) { return op_def(kind).name; }

std::optional<OpKind> find_op(std::string_view name) {
  for (const OpDef& def : op_defs()) {
    if (def.name == name) return def.kind;
  }
  return std::nullopt;
}

const std::vector<OpKind>& all_ops() {
  static const std::vector<OpKind> ops = ops_where([](const OpDef&) { return true; });
  return ops;
}

const std::vector<OpKind>& unary_elementwise_ops() {
  static const std::vector<OpKind> ops =
      ops_where([](const OpDef& def) { return def.family == OpFamily::UnaryElementwise; });
  return ops;
}

const std::vector<OpKind>& binary_elementwise_ops() {
  static const std::vector<OpKind> ops =
      ops_where([](const OpDef& def) { return def.family == OpFamily::BinaryElementwise; });
  return ops;
}

const std::vector<OpKind>& stablehlo_primitive_ops() {
  static const std::vector<OpKind> ops = ops_where([](const OpDef& def) {
    return static_cast<int>(def.kind) >= static_cast<int>(OpKind::Abs) &&
           static_cast<int>(def.kind) <= static_cast<int>(OpKind::TakeAlongAxis);
  });
  return ops;
}

namespace {
// A StableHLO elementwise op taking exactly `arity` operands and no attribute.
template <int arity>
bool is_plain_stablehlo_elementwise(const OpDef& def) {
  return def.family == OpFamily::StablehloElementwise && def.min_inputs == arity && def.max_inputs == arity &&
         def.attrs.empty();
}
}  // namespace

const std::vector<OpKind>& stablehlo_unary_ops() {
  static const std::vector<OpKind> ops = ops_where(is_plain_stablehlo_elementwise<1>);
  return ops;
}

const std::vector<OpKind>& stablehlo_binary_ops() {
  static const std::vector<OpKind> ops = ops_where(is_plain_stablehlo_elementwise<2>);
  return ops;
}

int op_min_inputs(OpKind kind) { return op_def(kind).min_inputs; }
int op_max_inputs(OpKind kind) { return op_def(kind).max_inputs; }

bool is_unary_elementwise(OpKind kind) { return op_def(kind).family == OpFamily::UnaryElementwise; }
bool is_binary_elementwise(OpKind kind) { return op_def(kind).family == OpFamily::BinaryElementwise; }

int64_t normalize_axis(int64_t axis, int64_t rank) {
  const int64_t n = axis < 0 ? axis + rank : axis;
  if (n < 0 || n >= rank) ops::fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return n;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      ops::fail("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorType infer_type(OpKind kind, const std::vector<TensorType>& in, const Attrs& attrs) {
  const OpDef& def = op_def(kind);
  const int n = static_cast<int>(in.size());
  if (n < def.min_inputs || (def.max_inputs >= 0 && n > def.max_inputs)) {
    ops::fail("wrong number of operands: " + std::to_string(n));
  }
  validate_attrs(def, attrs);
  return def.infer(in, OpAttrs(def, attrs));
}

}  // namespace meshtest
