// Memory planning of a device program (private to compiler/): release lists
// from buffer liveness, and the planned peak DRAM footprint.
#pragma once

#include <cstdint>

#include "core/device_program.h"

namespace meshtest::compiler {

// Fills every instruction's `release` list (inputs and activations are
// released after their last use; graph outputs and weights never are; an
// unused activation is released by the instruction that makes it) and sets
// planned_peak_dram_bytes = weights + inputs + max over instructions of the
// live DRAM activations (planned_peak_l1_bytes likewise for L1 activations). When dram_capacity_bytes > 0 and the peak
// exceeds it, throws OutOfMemoryError naming the peak, the capacity, the instruction at the peak and the three largest
// tensors live there.
void plan_memory(DeviceProgram& program, int64_t dram_capacity_bytes);

}  // namespace meshtest::compiler
