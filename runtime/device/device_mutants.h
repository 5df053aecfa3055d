// The device-kernel mutants of core/mutation.h (private to runtime/device/):
// how the chip breaks an op's kernel on purpose while MESHTEST_MUTANT names a
// mutant whose site is a device kernel. Each one wraps the op's entry of the
// kernel table (changed operands, attributes or results), keeps the output's
// shape and dtype, and only runs for instructions of the mutant's op.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::runtime {

// Runs `instr` through the active mutant's broken version of `kernel` and
// returns true when the active mutant is a device-kernel mutant of
// instr.kind; otherwise does nothing and returns false.
bool run_mutated_kernel(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out,
                        DeviceKernel kernel);

}  // namespace meshtest::runtime
