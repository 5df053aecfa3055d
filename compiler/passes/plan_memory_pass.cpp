// Pass `plan-memory`: liveness-based buffer release (each buffer freed after
// its last use, so later buffers reuse its space), peak DRAM per chip, and at
// optimization level 2 placement of activations in on-chip SRAM (L1): in
// program order, an activation that is not a graph output goes to L1 when it
// fits beside the L1 activations live at that moment. Fails with an
// out-of-memory error naming the largest live tensors and the DRAM capacity.
#include "compiler/liveness.h"
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

namespace {

// Greedy first-come placement over the release lists computed by plan_memory.
int64_t place_in_l1(DeviceProgram& program, int64_t capacity) {
  std::vector<bool> is_output(program.buffers.size(), false);
  for (const auto& [name, b] : program.outputs) is_output[static_cast<size_t>(b)] = true;
  int64_t live = 0;
  int64_t placed = 0;
  for (const DeviceInstr& instr : program.instrs) {
    DeviceBuffer& out = program.buffers[static_cast<size_t>(instr.output)];
    if (!is_output[static_cast<size_t>(out.id)] && live + out.device_bytes <= capacity) {
      out.space = MemorySpace::L1;
      live += out.device_bytes;
      ++placed;
    }
    for (int32_t b : instr.release) {
      const DeviceBuffer& released = program.buffers[static_cast<size_t>(b)];
      if (released.space == MemorySpace::L1) live -= released.device_bytes;
    }
  }
  return placed;
}

}  // namespace

void plan_memory(CompileUnit& unit) {
  DeviceProgram& program = program_of(unit, "plan-memory");
  for (DeviceBuffer& b : program.buffers) b.space = MemorySpace::Dram;
  if (unit.options.optimization_level >= 2 && unit.options.l1_capacity_bytes > 0) {
    compiler::plan_memory(program, 0);  // release lists first
    unit.count("plan-memory.l1_buffers", place_in_l1(program, unit.options.l1_capacity_bytes));
  }
  compiler::plan_memory(program, unit.options.dram_capacity_bytes);
  unit.count("plan-memory.peak_dram_bytes", program.planned_peak_dram_bytes);
  unit.count("plan-memory.peak_l1_bytes", program.planned_peak_l1_bytes);
}

}  // namespace meshtest::compiler::passes
