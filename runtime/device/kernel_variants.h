// The device paths a program can take, for `meshtest coverage`: every device
// kernel (each op of device_kernel_table() and each collective the mesh
// runtime performs) and the attribute variants that send it down a different
// code path (a GEMM's math fidelity and weight dtype, fused attention with or
// without a mask, ...). The kernels come from the op tables; the variants are
// declared here, one short list per kernel, and a program's instructions are
// classified against them. tests/runtime_device/kernel_variants_test.cpp
// fails when a kernel of the table has no declaration here.
//
// Item names: "<op>" (the kernel ran at all) and "<op>[<axis>=<value>]", e.g.
// "linear[fidelity=LoFi]", "sdpa[mask=per_query]".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_program.h"
#include "core/op_table.h"

namespace meshtest::runtime {

// One attribute of a kernel that selects a code path, with every value it takes.
struct VariantAxis {
  std::string_view name;                 // "fidelity", "mask", ...
  std::vector<std::string_view> values;  // "HiFi4", "LoFi", ...
  std::string_view meaning;              // one line for the docs and the report
};

struct KernelVariants {
  std::vector<VariantAxis> axes;  // none: the kernel has one path
  bool mesh_only = false;         // only a program split over a mesh holds it (collectives)
};

// Every op: its kernel's variants, or (none) why the device has no kernel path for it.
const OpTable<KernelVariants>& kernel_variant_table();

struct KernelVariantItem {
  std::string name;  // "linear" or "linear[fidelity=LoFi]"
  bool mesh_only = false;
};

// Every item the device can run, in OpKind order (kernel, then its axes' values).
std::vector<KernelVariantItem> all_kernel_variants();

// The items `instr` of `program` takes: its kernel, and one per declared axis.
// A value outside the declared list still comes back (the report shows it as
// undeclared, so a new path cannot hide).
std::vector<std::string> instruction_variants(const DeviceProgram& program, const DeviceInstr& instr);

// Every item the program's instructions take, with how many instructions take it.
std::map<std::string, int64_t> program_kernel_variants(const DeviceProgram& program);

}  // namespace meshtest::runtime
