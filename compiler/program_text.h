// Readable text of a device program (the --serialize dump after each device
// pass and the last stage of meshtest-opt), e.g.
//
//   program @mlp {
//     buffer #0 input @x : bf16[1,784] dram 57344
//     buffer #3 weight @fc1.weight : bfp8_b[512,784] dram 435200
//     #5 = linear(#0, #3, #4) {math_fidelity = "LoFi", ...} : bf16[1,512] l1 32768 // op #0 linear; release #0
//     output @probs = #7
//     // peak dram 1234567 bytes, peak l1 32768 bytes, 3 instructions
//   }
//
// Weights are named, not dumped. Meant for reading and FileCheck, not parsing.
#pragma once

#include <string>

#include "core/device_program.h"

namespace meshtest::compiler {

std::string print_program(const DeviceProgram& program);

}  // namespace meshtest::compiler
