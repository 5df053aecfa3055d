// Pass `tile-layout`: every buffer occupies whole 32x32 tiles of its last two
// dims (tile_padded_bytes); device_bytes records that real footprint. conv2d
// weights [O, C/g, KH, KW] (and conv2d_backward_weight results, the weight
// gradients of training graphs, also once all-reduced) are stored as the GEMM matrix [O, C/g*KH*KW] —
// tiling the 3x3 trailing dims would inflate them up to 1024 times; likewise
// a broadcast column [..., C, 1, 1] (per-channel scale) is stored as one row.
// Statistic: bytes added by padding.
#include "compiler/passes/passes.h"

namespace meshtest::compiler::passes {

void tile_layout(CompileUnit& unit) {
  DeviceProgram& program = program_of(unit, "tile-layout");
  std::vector<bool> conv_weight(program.buffers.size(), false);
  std::vector<bool> weight_gradient(program.buffers.size(), false);
  for (const DeviceInstr& instr : program.instrs) {
    if (instr.kind == OpKind::Conv2d || instr.kind == OpKind::Conv2dBackwardInput)
      conv_weight[static_cast<size_t>(instr.inputs[1])] = true;
    // A data-parallel weight gradient is summed over the chips in that layout.
    const bool reduced_gradient =
        instr.kind == OpKind::AllReduce && weight_gradient[static_cast<size_t>(instr.inputs[0])];
    if (instr.kind == OpKind::Conv2dBackwardWeight || reduced_gradient)
      weight_gradient[static_cast<size_t>(instr.output)] = true;
  }
  int64_t padding = 0;
  for (DeviceBuffer& b : program.buffers) {
    TensorType stored = b.type;
    const Shape& s = stored.shape;
    const bool matrix = (b.kind == BufferKind::Weight && conv_weight[static_cast<size_t>(b.id)]) ||
                        weight_gradient[static_cast<size_t>(b.id)];
    if (matrix && s.size() == 4) {
      stored.shape = {s[0], s[1] * s[2] * s[3]};
    } else if (s.size() >= 2 && s[s.size() - 1] == 1 && s[s.size() - 2] == 1) {
      stored.shape = {shape_numel(s)};  // a per-channel broadcast column [.., C, 1, 1] is one row of C values
    }
    b.device_bytes = tile_padded_bytes(stored);
    padding += b.device_bytes - static_cast<int64_t>(storage_bytes(stored.dtype, shape_numel(stored.shape)));
  }
  unit.count("tile-layout.padding_bytes", padding);
}

}  // namespace meshtest::compiler::passes
