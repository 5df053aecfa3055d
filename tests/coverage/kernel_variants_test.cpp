// The declared kernel variants (runtime/device/kernel_variants.h) against the
// device: every kernel of device_kernel_table() has a declaration (a kernel
// added without one fails here, so coverage cannot miss it silently), nothing
// is declared for an op the device does not know, and instructions are
// classified into declared values.
#include "runtime/device/kernel_variants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/device/simulated_chip.h"

namespace meshtest::runtime {
namespace {

TEST(KernelVariants, EveryDeviceKernelIsDeclared) {
  for (OpKind kind : all_ops()) {
    if (device_kernel_table().find(kind) == nullptr) continue;
    EXPECT_NE(kernel_variant_table().find(kind), nullptr)
        << "device kernel '" << op_name(kind) << "' has no entry in runtime/device/kernel_variants.cpp";
  }
}

TEST(KernelVariants, DeclaresOnlyWhatTheDeviceRuns) {
  for (OpKind kind : all_ops()) {
    if (kernel_variant_table().find(kind) == nullptr) continue;
    // A kernel, or an op the table says the mesh runtime performs.
    EXPECT_TRUE(device_kernel_table().listed(kind)) << op_name(kind) << " is declared but the device does not list it";
    const bool mesh_only = kernel_variant_table().find(kind)->mesh_only;
    if (device_kernel_table().find(kind) == nullptr) {
      EXPECT_TRUE(mesh_only) << op_name(kind);
    }
  }
}

TEST(KernelVariants, ItemsAreUnique) {
  std::set<std::string> names;
  for (const KernelVariantItem& item : all_kernel_variants()) EXPECT_TRUE(names.insert(item.name).second) << item.name;
  EXPECT_TRUE(names.count("sdpa[mask=per_query]"));
  EXPECT_TRUE(names.count("linear[fidelity=LoFi]"));
  EXPECT_TRUE(names.count("all_reduce"));
}

// A small program: buffers by shape, kind and dtype, instructions over them.
struct ProgramBuilder {
  DeviceProgram program;
  int32_t buffer(Shape shape, BufferKind kind = BufferKind::Activation, DType dtype = DType::BF16) {
    DeviceBuffer b;
    b.id = static_cast<int32_t>(program.buffers.size());
    b.kind = kind;
    b.type = {dtype, std::move(shape)};
    program.buffers.push_back(b);
    return b.id;
  }
  const DeviceInstr& instr(OpKind kind, std::vector<int32_t> inputs, Attrs attrs = {}) {
    DeviceInstr i;
    i.kind = kind;
    for (int32_t id : inputs) i.inputs.push_back(id);
    i.output = buffer({1});
    i.attrs = std::move(attrs);
    program.instrs.push_back(i);
    return program.instrs.back();
  }
};

std::set<std::string> items_of(const ProgramBuilder& b, size_t i) {
  const auto v = instruction_variants(b.program, b.program.instrs[i]);
  return {v.begin(), v.end()};
}

TEST(KernelVariants, ClassifiesGemmFidelityWeightsAndBias) {
  ProgramBuilder b;
  const int32_t x = b.buffer({4, 64});
  const int32_t w = b.buffer({32, 64}, BufferKind::Weight, DType::BFP8_B);
  const int32_t bias = b.buffer({32}, BufferKind::Weight);
  b.instr(OpKind::Linear, {x, w, bias}, {{"math_fidelity", std::string("LoFi")}, {"fidelity_phases", int64_t{1}}});
  b.instr(OpKind::Matmul, {x, x});
  EXPECT_EQ(items_of(b, 0),
            (std::set<std::string>{"linear", "linear[fidelity=LoFi]", "linear[weights=bfp8_b]", "linear[bias=yes]"}));
  EXPECT_EQ(items_of(b, 1), (std::set<std::string>{"matmul", "matmul[fidelity=HiFi4]", "matmul[weights=activation]"}));
}

TEST(KernelVariants, ClassifiesAttentionMaskAndQueries) {
  ProgramBuilder b;
  const int32_t q = b.buffer({2, 4, 16, 8});
  const int32_t q1 = b.buffer({2, 4, 1, 8});
  const int32_t kt = b.buffer({2, 4, 8, 16});
  const int32_t v = b.buffer({2, 4, 16, 8});
  const int32_t causal = b.buffer({1, 1, 16, 16});
  const int32_t padding = b.buffer({2, 1, 1, 16});
  const Attrs scale{{"scale", 0.35}};
  b.instr(OpKind::Sdpa, {q, kt, v}, scale);
  b.instr(OpKind::Sdpa, {q, kt, v, causal}, scale);
  b.instr(OpKind::Sdpa, {q, kt, v, padding}, scale);
  b.instr(OpKind::Sdpa, {q1, kt, v, padding}, scale);
  EXPECT_TRUE(items_of(b, 0).count("sdpa[mask=none]"));
  EXPECT_TRUE(items_of(b, 1).count("sdpa[mask=per_query]"));
  EXPECT_TRUE(items_of(b, 2).count("sdpa[mask=padding]"));
  EXPECT_TRUE(items_of(b, 2).count("sdpa[queries=many]"));
  EXPECT_TRUE(items_of(b, 3).count("sdpa[queries=one]"));
}

TEST(KernelVariants, EveryClassifiedValueIsDeclared) {
  ProgramBuilder b;
  const int32_t x = b.buffer({1, 8, 8, 4});
  const int32_t w = b.buffer({4, 1, 3, 3}, BufferKind::Weight);
  b.instr(OpKind::Conv2d, {x, w}, {{"groups", int64_t{4}}, {"math_fidelity", std::string("HiFi3")}});
  b.instr(OpKind::Gelu, {x}, {{"approximate", std::string("tanh")}});
  b.instr(OpKind::AllGather, {x});
  std::set<std::string> declared;
  for (const KernelVariantItem& item : all_kernel_variants()) declared.insert(item.name);
  for (const auto& [name, count] : program_kernel_variants(b.program)) {
    EXPECT_TRUE(declared.count(name)) << name << " is not declared";
    EXPECT_EQ(count, 1) << name;
  }
  EXPECT_TRUE(items_of(b, 0).count("conv2d[groups=grouped]"));
  EXPECT_TRUE(items_of(b, 1).count("gelu[approximate=tanh]"));
}

}  // namespace
}  // namespace meshtest::runtime
