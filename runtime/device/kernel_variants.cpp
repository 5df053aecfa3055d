// The declared variants of every device kernel and the classification of a
// program's instructions against them (see kernel_variants.h).
#include "runtime/device/kernel_variants.h"

#include <utility>

namespace meshtest::runtime {

namespace {

using K = OpKind;

// The axes, each declared once and shared by the kernels that have it.
const VariantAxis kFidelity{
    "fidelity",
    {"HiFi4", "HiFi3", "HiFi2", "LoFi"},
    "math fidelity: HiFi4 one exact GEMM; HiFi3 a second low-slice GEMM; HiFi2, LoFi sliced operands"};
const VariantAxis kWeights{"weights",
                           {"activation", "bf16", "bfp8_b"},
                           "operand 1: an activation, or a weight stored as bf16 or decoded from bfp8_b blocks"};
const VariantAxis kBias{"bias", {"yes", "no"}, "a bias operand is added"};
const VariantAxis kGroups{"groups", {"dense", "grouped"}, "groups == 1, or grouped / depthwise (goihw weights)"};
const VariantAxis kMask{"mask",
                        {"none", "padding", "per_query"},
                        "no mask; one mask row broadcast over the queries (key padding); a row per query (causal)"};
const VariantAxis kQueries{"queries", {"one", "many"}, "one query row (a decode step) or a whole sequence"};
const VariantAxis kApproximate{"approximate", {"none", "tanh"}, "GELU by erf, or its tanh approximation"};

KernelVariants plain() { return {}; }
KernelVariants with(std::vector<VariantAxis> axes) { return {std::move(axes), false}; }
KernelVariants on_mesh() { return {{}, true}; }

// Mirrors device_kernel_table() (device_kernel_table.cpp) op for op, plus the
// collectives the mesh runtime performs; a kernel added there and not here
// fails kernel_variants_test.
OpTable<KernelVariants> build() {
  OpTable<KernelVariants> t("kernel variants");
  t.set(unary_elementwise_ops(), plain());
  t.set(K::Gelu, with({kApproximate}));
  t.set(binary_elementwise_ops(), plain());
  t.set({K::Cast, K::Constant}, plain());
  t.set(K::Matmul, with({kFidelity, kWeights}));
  t.set(K::Linear, with({kFidelity, kWeights, kBias}));
  t.set(K::Conv2d, with({kFidelity, kWeights, kBias, kGroups}));
  t.set({K::MaxPool2d, K::AvgPool2d, K::GlobalAvgPool2d, K::BatchNorm, K::LayerNorm, K::Softmax, K::Embedding,
         K::Reshape, K::Transpose, K::Concat, K::Slice, K::ReduceSum, K::ReduceMean, K::ReduceMax, K::RmsNorm,
         K::TopkMask, K::Greater},
        plain());
  t.set(K::Sdpa, with({kMask, kQueries}));
  // Backward kernels (training programs).
  t.set({K::Conv2dBackwardInput, K::Conv2dBackwardWeight, K::MaxPool2dBackward, K::AvgPool2dBackward,
         K::EmbeddingBackward, K::SliceBackward},
        plain());
  // StableHLO ops: one path each.
  t.set(stablehlo_unary_ops(), plain());
  t.set(stablehlo_binary_ops(), plain());
  t.set({K::Compare,
         K::Select,
         K::Clamp,
         K::BitcastConvert,
         K::ReducePrecision,
         K::Iota,
         K::BroadcastInDim,
         K::Pad,
         K::Reverse,
         K::DynamicSlice,
         K::DynamicUpdateSlice,
         K::Gather,
         K::Scatter,
         K::DotGeneral,
         K::Convolution,
         K::Reduce,
         K::ReduceArg,
         K::ReduceWindow,
         K::SelectAndScatter,
         K::SortPermutation,
         K::TakeAlongAxis},
        plain());
  // The mesh runtime's collectives and the per-chip parts of a split program.
  t.set({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice, K::EmbeddingShard}, on_mesh());
  return t;
}

const DeviceBuffer* buffer(const DeviceProgram& program, const BufferIds& ids, size_t slot) {
  if (slot >= ids.size()) return nullptr;
  const auto id = static_cast<size_t>(ids[slot]);
  return id < program.buffers.size() ? &program.buffers[id] : nullptr;
}

std::string weights_of(const DeviceProgram& program, const DeviceInstr& instr) {
  const DeviceBuffer* b = buffer(program, instr.inputs, 1);
  if (b == nullptr || b->kind != BufferKind::Weight) return "activation";
  return std::string(dtype_name(b->type.dtype));
}

// The rows of sdpa's mask: one broadcast over every query (padding), or one per query.
std::string mask_of(const DeviceProgram& program, const DeviceInstr& instr) {
  const DeviceBuffer* m = buffer(program, instr.inputs, 3);
  if (m == nullptr) return "none";
  const Shape& shape = m->type.shape;
  return shape.size() < 2 || shape[shape.size() - 2] == 1 ? "padding" : "per_query";
}

std::string queries_of(const DeviceProgram& program, const DeviceInstr& instr) {
  const DeviceBuffer* q = buffer(program, instr.inputs, 0);
  const bool one = q != nullptr && q->type.shape.size() >= 2 && q->type.shape[q->type.shape.size() - 2] == 1;
  return one ? "one" : "many";
}

std::string value_of(std::string_view axis, const DeviceProgram& program, const DeviceInstr& instr) {
  if (axis == kFidelity.name) return instr.attrs.get_string("math_fidelity", "HiFi4");
  if (axis == kWeights.name) return weights_of(program, instr);
  if (axis == kBias.name) return instr.inputs.size() > 2 ? "yes" : "no";
  if (axis == kGroups.name) return instr.attrs.get_int("groups", 1) == 1 ? "dense" : "grouped";
  if (axis == kMask.name) return mask_of(program, instr);
  if (axis == kQueries.name) return queries_of(program, instr);
  if (axis == kApproximate.name) return instr.attrs.get_string("approximate", "none");
  return "?";
}

std::string item(std::string_view op, std::string_view axis, std::string_view value) {
  return std::string(op) + "[" + std::string(axis) + "=" + std::string(value) + "]";
}

}  // namespace

const OpTable<KernelVariants>& kernel_variant_table() {
  static const OpTable<KernelVariants> table = build();
  return table;
}

std::vector<KernelVariantItem> all_kernel_variants() {
  std::vector<KernelVariantItem> out;
  for (OpKind kind : all_ops()) {
    const KernelVariants* v = kernel_variant_table().find(kind);
    if (v == nullptr) continue;
    const std::string_view op = op_name(kind);
    out.push_back({std::string(op), v->mesh_only});
    for (const VariantAxis& axis : v->axes) {
      for (std::string_view value : axis.values) out.push_back({item(op, axis.name, value), v->mesh_only});
    }
  }
  return out;
}

std::vector<std::string> instruction_variants(const DeviceProgram& program, const DeviceInstr& instr) {
  const std::string_view op = op_name(instr.kind);
  std::vector<std::string> out = {std::string(op)};
  if (const KernelVariants* v = kernel_variant_table().find(instr.kind)) {
    for (const VariantAxis& axis : v->axes) out.push_back(item(op, axis.name, value_of(axis.name, program, instr)));
  }
  return out;
}

std::map<std::string, int64_t> program_kernel_variants(const DeviceProgram& program) {
  std::map<std::string, int64_t> out;
  for (const DeviceInstr& instr : program.instrs) {
    for (std::string& name : instruction_variants(program, instr)) ++out[std::move(name)];
  }
  return out;
}

}  // namespace meshtest::runtime
