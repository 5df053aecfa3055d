// Pass `lower-dtypes`: device dtypes for every buffer and GEMM precision.
// Float activations and inputs become bf16 (integers stay as they are);
// float weights read only as GEMM weight operands (matmul operands, linear and
// conv2d weights) take CompileOptions::weight_dtype (bf16 or bfp8_b), any
// other float weight bf16. With a math fidelity below HiFi4, every GEMM
// instruction carries math_fidelity, the number of fidelity phases the device
// runs (fidelity_phases) and the high-slice widths of the activation and
// weight operands (fidelity_bits_a / fidelity_bits_b); see compile_options.h.
#include "compiler/passes/passes.h"
#include "core/error.h"

namespace meshtest::compiler::passes {

namespace {

bool is_gemm(OpKind kind) { return kind == OpKind::Matmul || kind == OpKind::Linear || kind == OpKind::Conv2d; }

bool is_gemm_weight_slot(OpKind kind, size_t slot) {
  if (kind == OpKind::Matmul) return slot < 2;
  return (kind == OpKind::Linear || kind == OpKind::Conv2d) && slot == 1;
}

}  // namespace

void lower_dtypes(CompileUnit& unit) {
  DeviceProgram& program = program_of(unit, "lower-dtypes");
  const CompileOptions& options = unit.options;
  if (options.weight_dtype != DType::BF16 && options.weight_dtype != DType::BFP8_B) {
    throw CompileError("weight dtype must be bf16 or bfp8_b, got " + std::string(dtype_name(options.weight_dtype)));
  }
  std::vector<bool> other_use(program.buffers.size(), false);  // read outside a GEMM weight slot
  for (const DeviceInstr& instr : program.instrs) {
    for (size_t slot = 0; slot < instr.inputs.size(); ++slot) {
      if (!is_gemm_weight_slot(instr.kind, slot)) other_use[static_cast<size_t>(instr.inputs[slot])] = true;
    }
  }
  for (const auto& [name, b] : program.outputs) other_use[static_cast<size_t>(b)] = true;
  for (DeviceBuffer& b : program.buffers) {
    if (!is_floating(b.type.dtype)) continue;
    const bool gemm_weight = b.kind == BufferKind::Weight && !other_use[static_cast<size_t>(b.id)];
    b.type.dtype = gemm_weight ? options.weight_dtype : DType::BF16;
    if (gemm_weight && options.weight_dtype == DType::BFP8_B) unit.count("lower-dtypes.bfp8_weights");
  }
  if (options.math_fidelity == MathFidelity::HiFi4) return;
  for (DeviceInstr& instr : program.instrs) {
    if (!is_gemm(instr.kind)) continue;
    instr.attrs.set("math_fidelity", std::string(math_fidelity_name(options.math_fidelity)));
    instr.attrs.set("fidelity_phases", int64_t{fidelity_phases(options.math_fidelity)});
    instr.attrs.set("fidelity_bits_a", int64_t{kActivationHighSliceBits});
    instr.attrs.set("fidelity_bits_b", int64_t{kWeightHighSliceBits});
    unit.count("lower-dtypes.reduced_fidelity_gemms");
  }
}

}  // namespace meshtest::compiler::passes
