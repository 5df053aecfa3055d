// One simulated accelerator chip: executes a DeviceProgram with bf16
// activations and f32 accumulation, tracking DRAM use against its capacity.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/device_program.h"
#include "core/tensor.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runtime {

struct ExecutionStats {
  int64_t peak_dram_bytes = 0;   // highest tile-padded bytes live at once
  int64_t ops_executed = 0;
  int64_t dram_bytes_at_end = 0;  // must be 0: every buffer released
};

class SimulatedChip {
 public:
  explicit SimulatedChip(ChipSpec spec, int chip_id = 0);

  // Uploads inputs (converted to each input buffer's device dtype), runs every
  // instruction, downloads outputs as f32 (integer outputs keep their dtype).
  // Throws OutOfMemoryError when live buffers exceed DRAM, RuntimeError
  // ("chip 0, op #12 conv2d: ...") on kernel failure.
  std::vector<Tensor> execute(const DeviceProgram& program, const std::map<std::string, Tensor>& inputs);

  const ExecutionStats& last_stats() const { return stats_; }
  const ChipSpec& spec() const { return spec_; }

 private:
  ChipSpec spec_;
  int chip_id_;
  ExecutionStats stats_;
};

}  // namespace meshtest::runtime
