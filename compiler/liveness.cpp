// Buffer liveness and peak-DRAM planning: release lists per instruction and a
// clear out-of-memory diagnosis (peak, capacity, largest live tensors).
#include "compiler/liveness.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace meshtest::compiler {

namespace {

std::string format_bytes(int64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[unit]);
  return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

struct LiveTensor {
  std::string label;
  int64_t bytes = 0;
};

// "weight 'fc.weight' bf16[1000,2048]", "op #12 conv2d result bf16[1,64,56,56]".
std::string describe_buffer(const DeviceProgram& program, const DeviceBuffer& b, const std::vector<int64_t>& producer) {
  const std::string type = type_to_string(b.type);
  switch (b.kind) {
    case BufferKind::Weight:
      return "weight '" + b.name + "' " + type;
    case BufferKind::Input:
      return "input '" + b.name + "' " + type;
    case BufferKind::Activation:
      break;
  }
  const int64_t p = producer[static_cast<size_t>(b.id)];
  if (p < 0) return "buffer #" + std::to_string(b.id) + " " + type;
  return program.instrs[static_cast<size_t>(p)].origin + " result " + type;
}

}  // namespace

void plan_memory(DeviceProgram& program, int64_t dram_capacity_bytes) {
  const size_t num_buffers = program.buffers.size();
  std::vector<int64_t> last_use(num_buffers, -1);
  std::vector<int64_t> producer(num_buffers, -1);
  std::vector<bool> is_output(num_buffers, false);
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    const DeviceInstr& instr = program.instrs[i];
    for (int32_t b : instr.inputs) last_use[static_cast<size_t>(b)] = static_cast<int64_t>(i);
    producer[static_cast<size_t>(instr.output)] = static_cast<int64_t>(i);
  }
  for (const auto& [name, b] : program.outputs) is_output[static_cast<size_t>(b)] = true;

  // Release points: -1 means "never released by an instruction".
  std::vector<int64_t> release_at(num_buffers, -1);
  for (DeviceInstr& instr : program.instrs) instr.release.clear();
  int64_t resident_bytes = 0;  // weights and inputs, counted as live throughout
  for (const DeviceBuffer& b : program.buffers) {
    const auto id = static_cast<size_t>(b.id);
    if (b.kind != BufferKind::Activation) resident_bytes += b.device_bytes;
    if (b.kind == BufferKind::Weight || is_output[id]) continue;
    const int64_t at = std::max(last_use[id], producer[id]);
    if (at < 0) continue;
    release_at[id] = at;
    program.instrs[static_cast<size_t>(at)].release.push_back(b.id);
  }

  // Sweep: the output of instruction i is allocated before it runs; its
  // releases happen after it has run.
  // Activations placed in L1 count against L1, not DRAM.
  int64_t live = 0;
  int64_t peak_live = 0;
  int64_t peak_instr = -1;
  int64_t live_l1 = 0;
  program.planned_peak_l1_bytes = 0;
  auto slot = [&](const DeviceBuffer& b) -> int64_t& { return b.space == MemorySpace::L1 ? live_l1 : live; };
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    const DeviceInstr& instr = program.instrs[i];
    const DeviceBuffer& out = program.buffers[static_cast<size_t>(instr.output)];
    slot(out) += out.device_bytes;
    program.planned_peak_l1_bytes = std::max(program.planned_peak_l1_bytes, live_l1);
    if (live > peak_live || peak_instr < 0) {
      peak_live = std::max(peak_live, live);
      peak_instr = static_cast<int64_t>(i);
    }
    for (int32_t b : instr.release) {
      const DeviceBuffer& released = program.buffers[static_cast<size_t>(b)];
      if (released.kind == BufferKind::Activation) slot(released) -= released.device_bytes;
    }
  }
  program.planned_peak_dram_bytes = resident_bytes + peak_live;
  if (dram_capacity_bytes <= 0 || program.planned_peak_dram_bytes <= dram_capacity_bytes) return;

  std::vector<LiveTensor> at_peak;
  for (const DeviceBuffer& b : program.buffers) {
    const auto id = static_cast<size_t>(b.id);
    bool live_at_peak = b.kind != BufferKind::Activation;
    if (!live_at_peak && peak_instr >= 0 && b.space == MemorySpace::Dram) {
      live_at_peak = producer[id] <= peak_instr && (release_at[id] < 0 || release_at[id] >= peak_instr);
    }
    if (live_at_peak) at_peak.push_back({describe_buffer(program, b, producer), b.device_bytes});
  }
  std::stable_sort(at_peak.begin(), at_peak.end(),
                   [](const LiveTensor& a, const LiveTensor& b) { return a.bytes > b.bytes; });
  std::string message = "out of device DRAM: planned peak " + format_bytes(program.planned_peak_dram_bytes) +
                        " exceeds capacity " + format_bytes(dram_capacity_bytes);
  if (peak_instr >= 0) message += " at " + program.instrs[static_cast<size_t>(peak_instr)].origin;
  message += " (weights and inputs " + format_bytes(resident_bytes) + ", activations " + format_bytes(peak_live) + ")";
  message += "; largest live tensors:";
  for (size_t i = 0; i < at_peak.size() && i < 3; ++i) {
    message += (i ? ", " : " ") + at_peak[i].label + " = " + format_bytes(at_peak[i].bytes);
  }
  throw OutOfMemoryError(message);
}

}  // namespace meshtest::compiler
