// One simulated accelerator chip: executes a DeviceProgram with bf16
// activations and f32 accumulation, tracking DRAM use against its capacity.
//
// Numerics: float activations are stored as bf16; matmul/linear/conv2d take
// bf16 operands (bfp8_b weights are decoded to their exact bf16 values),
// accumulate in f32 (oneDNN) and round the result to bf16; every other kernel
// reads bf16, computes in f32 and writes bf16. Kernels share no code with the
// CPU reference (runtime/reference).
//
// Math fidelity: GEMM instructions carrying fidelity_phases multiply the
// high / low mantissa slices of their activation and weight (fidelity_bits_a /
// fidelity_bits_b wide) in that many hardware phases (see
// compiler/compile_options.h).
//
// Memory: buffers the compiler placed in L1 count against the chip's L1 (per
// core times cores), all others against DRAM. Weights are resident for the whole execution, inputs and
// activations are allocated when uploaded / produced and released per each
// instruction's `release` list; outputs and weights are freed after download.
// ExecutionStats::dram_bytes_at_end is what was still allocated after that
// (a leak in the program's release lists); it must be 0.
//
// Streamed weights (a ChipWeightFeed): the DRAM accounting is the same (every
// weight is allocated at upload and stays until download, so a program whose
// plan does not fit still runs out of memory), but the host holds a weight's
// data only from the first instruction that reads it to the last one: the
// feed materializes it on first read and is told when the chip is done.
//
// Test-only hook: when the environment variable MESHTEST_TEST_PERTURB_DEVICE_OP
// names an op (its IR text name, e.g. "conv2d"), every float result of that op
// is replaced by x + rms(result) * N(0,1), the normal samples drawn from
// meshtest::Rng(mix_seed(kPerturbSeed, instruction index)) in element order.
// Deterministic; used to prove the device and golden paths are independent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device_program.h"
#include "core/op_table.h"
#include "core/tensor.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runtime {

// Seed of the MESHTEST_TEST_PERTURB_DEVICE_OP noise (see above).
constexpr uint64_t kPerturbSeed = 0x6d65736874657374ull;  // "meshtest"

struct ExecutionStats {
  int64_t peak_dram_bytes = 0;   // highest tile-padded DRAM bytes live at once
  int64_t peak_l1_bytes = 0;     // highest L1 bytes live at once (all cores)
  int64_t ops_executed = 0;
  int64_t dram_bytes_at_end = 0;  // must be 0: every buffer released
};

// Sees instruction `i` right after its kernel ran on a chip (before the
// release): the operands as the kernel saw them and the result, in device
// dtypes (op-level golden, `meshtest run --op-golden`). Not called for
// instructions completed elsewhere (collectives).
using InstrObserver =
    std::function<void(size_t i, const std::vector<const Tensor*>& operands, const Tensor& result)>;

// Where a chip's weight data comes from when it is streamed (see above):
// `fetch` gives weight buffer `id`'s data in its device dtype (called on the
// first read); `done` says the chip passed the buffer's last read, whether it
// read it or received that instruction's result from elsewhere. Both may be
// called concurrently by the chips of a mesh.
struct ChipWeightFeed {
  std::function<Tensor(int32_t id)> fetch;
  std::function<void(int32_t id)> done;
};

// One execution of a program on a chip, driven instruction by instruction
// (the mesh runtime runs one per chip in lock-step and performs collectives
// itself; SimulatedChip::execute runs one from start to end). `weights` holds
// this chip's weight data by buffer id (a mesh gives each chip its shards);
// with a `feed` the weights are streamed instead (`weights` is not read).
class ChipRun {
 public:
  ChipRun(const ChipSpec& spec, int chip_id, const DeviceProgram& program, const std::map<int32_t, Tensor>& weights,
          ChipWeightFeed feed = {});
  ~ChipRun();
  ChipRun(const ChipRun&) = delete;
  ChipRun& operator=(const ChipRun&) = delete;

  // Weights, then inputs (converted to each buffer's device dtype).
  void upload(const std::map<std::string, Tensor>& inputs);
  // Instruction `i` on this chip's kernels: allocate, compute, (observe,) release.
  void run(size_t i);
  // Every later run(i) is shown to `observer` (empty: none).
  void set_observer(InstrObserver observer);
  // Operand `k` of instruction `i` as a kernel sees it (bfp8_b decoded).
  const Tensor& operand(size_t i, size_t k);
  // Completes instruction `i` with a result computed elsewhere (a collective):
  // allocates its output holding `result` (same type), then releases.
  void complete(size_t i, Tensor result);
  // The result of instruction `i` while it is on the device, else nullptr.
  const Tensor* result(size_t i) const;
  // Outputs as host tensors (f32 / ints), then frees outputs and weights.
  std::vector<Tensor> download();
  const ExecutionStats& stats() const { return stats_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  ExecutionStats stats_;
};

// A device kernel: one instruction (kind, attributes) on its operands as the
// chip holds them, writing the preallocated `out`.
using DeviceKernel = void (*)(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out);
// The chip's kernel of every op, or why it has none (device_kernel_table.cpp).
const OpTable<DeviceKernel>& device_kernel_table();
// Whether `kind`'s kernel writes every element of its result whatever the
// shapes (edge cases included), so the chip may hand it an unzeroed buffer;
// other kernels rely on the buffer starting as zeros.
bool writes_every_element(OpKind kind);

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
