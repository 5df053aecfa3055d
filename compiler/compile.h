// The device compiler entry point: graph in, device program out.
// Pipeline today: verify (shapes, dtypes) -> lower (bf16 activations, weight
// dtype conversion, tile-padded buffers, liveness release lists, peak DRAM).
#pragma once

#include <cstdint>

#include "core/device_program.h"
#include "core/graph.h"

namespace meshtest::compiler {

struct CompileOptions {
  int optimization_level = 0;
  DType weight_dtype = DType::BF16;  // bf16 or bfp8_b (matmul/linear/conv weights)
  int64_t dram_capacity_bytes = 0;   // 0: unlimited; otherwise OOM is a CompileError
};

// Verifies `graph` and lowers it. Weights must be materialized or lazy; lazy
// weights are materialized here (converted to their device dtype).
// Throws CompileError naming the op, or OutOfMemoryError when the planned
// peak exceeds dram_capacity_bytes (naming the largest live tensors).
DeviceProgram compile(const Graph& graph, const CompileOptions& options);

}  // namespace meshtest::compiler
