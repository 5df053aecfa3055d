// The mesh runtime: bulk-synchronous SPMD execution of one per-chip program
// on every chip of a mesh. Each step runs one device instruction on every
// chip's shard in parallel (oneTBB), collectives exchange shards between
// steps. Per-chip DRAM is accounted and limited by each SimulatedChip; after
// every execution each chip must be back to zero (the leak check).
//
// Trace (enable_trace): the first execution records the dispatch sequence
// (which instructions are kernels, which are collectives); later executions
// replay it, running each maximal run of kernel instructions between two
// collectives as ONE parallel step per chip instead of one step per
// instruction (fewer fork/joins, no per-step dispatch decisions).
//
// Replicated work is simulated once: when every chip holds the very same
// operand tensors (replicated weights, the result of an all_reduce or
// all_gather, or of an earlier such step), the instruction runs on chip 0 and
// every chip receives that result (bit-identical by determinism); each chip
// still accounts the buffer in its own DRAM.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/device_program.h"
#include "core/sharding.h"
#include "core/tensor.h"
#include "runtime/device/chip_spec.h"
#include "runtime/mesh/streamed_weights.h"

namespace meshtest::runtime {

struct MeshProgram {
  Mesh mesh;
  DeviceProgram program;                           // the per-chip (local) program, same on every chip
  std::vector<std::map<int32_t, Tensor>> weights;  // per chip: weight data by buffer id (device dtype)
  // Set: the weights are streamed from it instead (`weights` empty): each
  // chip holds a weight's data from its first read to its last
  // (streamed_weights.h); DRAM is accounted as with `weights`.
  std::shared_ptr<const WeightSource> streamed;
  std::map<std::string, Sharding> inputs;          // global input name -> split (missing: replicated)
  std::map<std::string, Sharding> outputs;         // output name -> how chip results assemble (missing: replicated)
};

struct MeshStats {
  std::vector<int64_t> peak_dram_bytes;  // per chip
  std::vector<int64_t> peak_l1_bytes;    // per chip (all cores)
  int64_t ops_executed = 0;              // instructions per chip (same on every chip)
  int64_t collectives_executed = 0;
  int64_t bytes_moved_between_chips = 0;
  int64_t bytes_leaked = 0;  // device bytes still allocated after the execution, all chips
  int64_t parallel_steps = 0;  // fork/joins over the chips
  bool replayed = false;       // this execution replayed a trace
};

// Sees instruction `i` once its kernel ran on chip `chip` (op-level golden):
// operands and result in device dtypes. Chips may call it concurrently. An
// instruction whose operands every chip shares runs once, so only chip 0
// reports it; collectives are not reported.
using MeshInstrObserver =
    std::function<void(size_t chip, size_t i, const std::vector<const Tensor*>& operands, const Tensor& result)>;

class MeshRuntime {
 public:
  MeshRuntime(ChipSpec chip, bool enable_trace);

  // Splits the global inputs per program.inputs, runs every chip, assembles
  // the global outputs. Throws OutOfMemoryError / RuntimeError naming the chip
  // and op.
  std::vector<Tensor> execute(const MeshProgram& program, const std::map<std::string, Tensor>& inputs);

  const MeshStats& last_stats() const { return stats_; }
  bool has_trace() const { return traced_; }
  // Every later execution shows each kernel instruction to `observer` (empty: none).
  void set_observer(MeshInstrObserver observer) { observer_ = std::move(observer); }

 private:
  struct Step {
    size_t begin = 0, end = 0;  // instructions [begin, end)
    bool collective = false;    // one collective instruction
    bool shared = false;        // one instruction whose operands every chip shares
  };

  ChipSpec chip_;
  bool enable_trace_;
  bool traced_ = false;
  const DeviceProgram* traced_program_ = nullptr;
  std::vector<Step> trace_;
  MeshStats stats_;
  MeshInstrObserver observer_;
};

}  // namespace meshtest::runtime
