// What the simulated chip does to tensors around its kernels, shared by
// SimulatedChip and the public device API (device_api.h) so that both run the
// very same code: host <-> device conversions, bfp8_b weight decoding, and
// the dispatch of one instruction (math-fidelity phases, mutants, the kernel
// table).
#pragma once

#include <vector>

#include "core/device_program.h"
#include "core/tensor.h"

namespace meshtest::runtime {

// Host tensor -> device dtype (f32 -> bf16 rounded in parallel; anything else via Tensor::to).
Tensor to_device(const Tensor& host, DType dtype);
// Device tensor -> host: floats as f32, integers unchanged.
Tensor to_host(const Tensor& device);
// A bfp8_b weight as the bf16 tensor of exactly its decoded values (what a kernel reads).
Tensor decode_block_format(const Tensor& t);
// Runs `instr` on `in` (as kernels see them: bfp8_b already decoded) into the
// preallocated `out`; throws RuntimeError when the op has no device kernel.
void dispatch(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out);

}  // namespace meshtest::runtime
