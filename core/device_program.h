// The device program: what the compiler produces and the simulated chip runs.
// A flat list of device instructions over numbered buffers, with weights
// already converted to their device dtype and a release list per instruction
// (the buffers whose last use it is), so memory can be accounted exactly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/attrs.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/small_vector.h"
#include "core/tensor.h"

namespace meshtest {

// Side of a tile: device tensors occupy whole 32x32 tiles of their last two dims.
// kTileSide (32): core/bfp8_layout.h, via core/tensor.h.

enum class BufferKind { Input, Weight, Activation };
// Where a buffer lives: device DRAM, or on-chip SRAM (L1) sharded over the
// core grid (chosen by the compiler's plan-memory pass at optimization level 2).
enum class MemorySpace { Dram, L1 };

struct DeviceBuffer {
  int32_t id = 0;
  BufferKind kind = BufferKind::Activation;
  TensorType type;           // device dtype: bf16 activations, bf16/bfp8_b weights, ints as-is
  std::string name;          // graph input or weight name; empty for activations
  int64_t device_bytes = 0;  // tile-padded footprint
  MemorySpace space = MemorySpace::Dram;
  // The graph value it holds (activations and params; the passes keep a value's
  // id, a fused op's result is its root's): how a device result is matched with
  // the golden's value of the un-compiled graph (runner/pipeline/golden_anchor.h).
  // kNoValue (-1) for a buffer with no graph value.
  int32_t value = -1;
};

// A list of buffer ids; up to four are kept inline (no allocation).
using BufferIds = SmallVector<int32_t, 4>;

struct DeviceInstr {
  OpKind kind;
  BufferIds inputs;
  int32_t output = -1;
  Attrs attrs;
  std::string origin;  // the graph op it came from: "op #12 conv2d"
  BufferIds release;   // buffers whose last use is this instruction
};

struct DeviceProgram {
  std::string name;
  std::vector<DeviceBuffer> buffers;
  std::vector<DeviceInstr> instrs;
  // buffer id -> data in the buffer's device dtype once compiled. While the
  // compiler works, only weights it made itself (const-eval) have data here.
  std::map<int32_t, Tensor> weights;
  std::vector<std::pair<std::string, int32_t>> outputs;  // graph output name -> buffer id
  int64_t planned_peak_dram_bytes = 0;
  int64_t planned_peak_l1_bytes = 0;  // per chip, summed over its cores
};

// Bytes a tensor of `type` occupies on the device: the last two dims padded to
// multiples of 32 (a rank-1 tensor is one row of tiles; rank-0 is one tile).
int64_t tile_padded_bytes(const TensorType& type);

}  // namespace meshtest
