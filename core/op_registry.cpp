// The op registry: every family's definitions (core/ops/), indexed by OpKind.
// The one place that lists the families; it checks that every OpKind up to
// kLastOp has exactly one definition.
#include <stdexcept>
#include <string>

#include "core/op_def.h"
#include "core/ops/families.h"

namespace meshtest {

namespace {

std::vector<OpDef> build_registry() {
  const std::vector<std::vector<OpDef> (*)()> families = {
      ops::unary_elementwise_ops, ops::binary_elementwise_ops, ops::conversion_ops, ops::linalg_ops,
      ops::conv_ops,              ops::pooling_ops,            ops::norm_ops,       ops::softmax_ops,
      ops::routing_ops,           ops::shape_ops,              ops::reduction_ops,  ops::embedding_ops,
      ops::collective_ops,        ops::backward_ops,           ops::composite_ops,
      ops::stablehlo_elementwise_ops,
      ops::stablehlo_movement_ops,       ops::stablehlo_gather_scatter_ops, ops::stablehlo_linalg_ops,
      ops::stablehlo_reduction_ops,
  };
  const size_t count = static_cast<size_t>(kLastOp) + 1;
  std::vector<std::optional<OpDef>> slots(count);
  for (auto family : families) {
    for (OpDef& def : family()) {
      const auto index = static_cast<size_t>(def.kind);
      if (index >= count) throw std::logic_error("op '" + std::string(def.name) + "' is numbered past kLastOp");
      if (slots[index]) throw std::logic_error("op '" + std::string(def.name) + "' is defined twice");
      slots[index] = std::move(def);
    }
  }
  std::vector<OpDef> defs;
  defs.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (!slots[i]) throw std::logic_error("OpKind " + std::to_string(i) + " has no definition in core/ops/");
    defs.push_back(std::move(*slots[i]));
  }
  return defs;
}

}  // namespace

const std::vector<OpDef>& op_defs() {
  static const std::vector<OpDef> defs = build_registry();
  return defs;
}

const OpDef& op_def(OpKind kind) { return op_defs()[static_cast<size_t>(kind)]; }

}  // namespace meshtest
