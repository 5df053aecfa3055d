// The StableHLO emitter table: for every OpKind, the function writing it
// as StableHLO ops into a FunctionBuilder, or a stated reason why it has
// none (core/op_table.h). Built in one visible function from the family
// files:
//   stablehlo_write_elementwise.cpp  unary / binary / compare / cast / constant ops
//   stablehlo_write_nn.cpp           matmul, linear, conv2d, pools, norms, softmax, sdpa, topk_mask
//   stablehlo_write_shape.cpp        shape ops, reductions, embeddings, the StableHLO structural ops
//   stablehlo_write_backward.cpp     autodiff's backward ops
//   stablehlo_write_collectives.cpp  collectives and shard_slice
//   stablehlo_write_structural.cpp   the ops taken from StableHLO (gather, scatter, dot_general, reduce, sort...)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_table.h"
#include "frontends/stablehlo/stablehlo_builder.h"
#include "frontends/stablehlo/stablehlo_writer.h"

namespace meshtest::frontends::stablehlo {

class ModuleWriter;

// What an emitter sees of the op it writes.
struct EmitContext {
  FunctionBuilder& fn;
  ModuleWriter& module;
  const Graph& graph;
  const meshtest::Op& op;
  size_t op_index;
  std::vector<Val> in;  // the operands, in op order
  TensorType out;       // the op's result type (as written: bfp8_b -> f32)
  const WriteOptions& options;

  // CompileError "stablehlo writer: op #N <name>: <message>".
  [[noreturn]] void fail(const std::string& message) const;
  int64_t get_int(const std::string& name) const;  // the attribute, or the schema's default
  double get_float(const std::string& name) const;
  std::string get_string(const std::string& name) const;
  std::vector<int64_t> get_ints(const std::string& name) const;
};

using Emitter = Val (*)(EmitContext&);

// A fused op written either inline or as `stablehlo.composite "<name>"`
// (WriteOptions::composites) calling a private function that holds the same
// decomposition. `attributes`: the composite_attributes dictionary body
// ("approximate = \"tanh\""; empty for none).
using Decomposition = std::function<Val(FunctionBuilder&, const std::vector<Val>&)>;
Val emit_fused(EmitContext& c, const std::string& composite_name, const std::string& attributes,
               const std::vector<Val>& operands, const TensorType& result, const Decomposition& decompose);

// The replica groups of a collective over mesh `axes` ("model" or "batch,model"):
// every group's chip ids by rank. Throws when the options give no mesh.
std::vector<std::vector<int64_t>> replica_groups(const EmitContext& c, const std::string& axes);

const OpTable<Emitter>& stablehlo_emitters();

// Family parts of the table.
void add_elementwise_emitters(OpTable<Emitter>& table);
void add_nn_emitters(OpTable<Emitter>& table);
void add_shape_emitters(OpTable<Emitter>& table);
void add_backward_emitters(OpTable<Emitter>& table);
void add_collective_emitters(OpTable<Emitter>& table);
void add_structural_emitters(OpTable<Emitter>& table);

}  // namespace meshtest::frontends::stablehlo
