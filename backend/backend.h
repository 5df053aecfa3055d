// The backend boundary (versioned, deliberately small): a device backend
// compiles a graph for a mesh of its chips into an Executable, and executes
// an Executable on inputs into outputs plus memory statistics. One chip is
// the 1x1 mesh. Backends are created by name (backend/registry.h); the
// runner only talks to this interface. Nothing here exposes the compiler's
// internals: dumps arrive as text, pass timings stay inside the backend.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/device_settings.h"
#include "codegen/cpp_codegen.h"
#include "core/device_program.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/sharding.h"
#include "core/tensor.h"
#include "runtime/device/cost_model.h"

namespace meshtest::backend {

// Bumped on any incompatible change of Backend or Executable.
// 2: meshes (CompileOptions::sharding, CompileRequest::enable_trace, per-chip
//    and collective figures in CompileInfo / MemoryStats).
// 3: its own module; dumps as text (StageDump), no pass list in CompileInfo;
//    one chip is the 1x1 mesh (per-chip figures always filled).
// 4: CompileInfo::cost, the modelled device time of the program;
//    Backend::observe_ops (op-level golden); Backend::generate_program (meshtest codegen).
// 5: CompileRequest::stream_weights.
// 6: CompileInfo::platform / device_kind / devices / options_not_applied,
//    MemoryStats::device_seconds, DevicesUnavailable.
// 7: CompileRequest holds backend-neutral DeviceSettings and the
//    ShardingRequest, not the simulated compiler's options.
// 8: CompileInfo::kernel_variants (meshtest coverage).
constexpr int kBackendApiVersion = 8;

// Thrown by compile when the program needs more devices than the backend
// has (a mesh case on a PJRT plugin with fewer devices): the case is skipped
// with this message, never failed.
class DevicesUnavailable : public Error {
 public:
  using Error::Error;
};

// What compiling produced, for reports (same for a cache hit).
struct CompileInfo {
  bool cache_hit = false;
  std::string cache_warning;             // a corrupted/foreign entry that was ignored
  std::map<std::string, int64_t> stats;  // compiler statistics ("fuse.ops_fused", ...)
  int64_t planned_peak_dram_bytes = 0;   // per chip
  int64_t planned_peak_l1_bytes = 0;     // per chip
  int64_t device_ops = 0;
  std::string mesh = "1x1";                     // the mesh the program was compiled for
  std::vector<std::string> sharding_fallbacks;  // ops the shard pass gathered to replicated
  int64_t collectives = 0;                      // collective instructions per execution
  // Modelled device time per execution on the target chip (a backend without
  // a cost model leaves it empty: seconds 0).
  runtime::ProgramCost cost;
  // What ran it: the platform (name and version), the kind of device and how
  // many the program uses, and the case's settings the backend could not
  // apply ("math_fidelity=LoFi (plugin 'cuda' does not read it)").
  std::string platform;
  std::string device_kind;
  int devices = 1;
  std::vector<std::string> options_not_applied;
  // The device paths the program takes (runtime/device/kernel_variants.h
  // item names, e.g. "linear[fidelity=LoFi]") with how many instructions
  // take each; empty where the backend cannot say (a PJRT plugin).
  std::map<std::string, int64_t> kernel_variants;
};

struct MemoryStats {
  int64_t peak_dram_bytes = 0;  // per chip (the highest chip on a mesh)
  int64_t peak_l1_bytes = 0;    // per chip (the highest chip on a mesh)
  int64_t ops_executed = 0;     // per chip
  std::vector<int64_t> per_chip_peak_dram_bytes;  // index = chip id (one entry on one chip)
  int64_t collectives_executed = 0;
  int64_t bytes_moved_between_chips = 0;
  int64_t device_bytes_leaked = 0;  // still allocated after the execution, all chips
  // The device's own time for the execution (launch to completion, transfers
  // excluded) where the backend measures it; 0: not measured (perf mode
  // then times the whole execute call).
  double device_seconds = 0;
};

class Executable {
 public:
  virtual ~Executable() = default;
  virtual const CompileInfo& info() const = 0;
};

// Sees the IR as text after every compile stage that ran (a pass name and
// the graph, or the device program once lowered).
using StageDump = std::function<void(std::string_view stage, const std::string& text)>;

// One device op as it ran on one chip (op-level golden, `run --op-golden`):
// the instruction, its position in the program, its operands as the kernel
// saw them and its result, in device dtypes. Valid only during the call.
struct OpExecution {
  int chip = 0;
  size_t index = 0;
  const DeviceProgram& program;  // the (per-chip) program it belongs to: buffer names
  const DeviceInstr& instr;
  const std::vector<const Tensor*>& operands;
  const Tensor& result;
  const Mesh* mesh = nullptr;  // the chip grid of a mesh program (outlives the execution); null on one chip
};
// Chips of a mesh may call it concurrently.
using OpObserver = std::function<void(const OpExecution&)>;

struct CompileRequest {
  DeviceSettings settings;  // optimization level, weight dtype, fidelity, fusion
  std::shared_ptr<const ShardingRequest> sharding;  // null: one chip (the 1x1 mesh)
  StageDump dump;  // not called on a cache hit
  // The first execution records its dispatch sequence, later ones replay it.
  bool enable_trace = false;
  // Streamed weights (docs/explanation/streamed-weights.md): every execution
  // materializes a weight on the chips when an op first reads it and frees it
  // after its last read, so the host never holds the whole model; the device
  // memory plan and accounting still count every weight resident.
  bool stream_weights = false;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual int api_version() const { return kBackendApiVersion; }
  virtual std::string name() const = 0;
  // Throws CompileError / OutOfMemoryError. Lazy weights stay lazy.
  virtual std::unique_ptr<Executable> compile(const Graph& graph, const CompileRequest& request) = 0;
  // Materializes weights on first use; throws RuntimeError / OutOfMemoryError.
  virtual std::vector<Tensor> execute(Executable& executable, const std::map<std::string, Tensor>& inputs,
                                      MemoryStats& stats) = 0;
  // Shows every device op of `executable`'s later executions to `observer`;
  // false when this backend cannot (then op-level golden is unavailable).
  virtual bool observe_ops(Executable& executable, OpObserver observer) {
    (void)executable;
    (void)observer;
    return false;
  }
  // The executable as a standalone C++ program run on `inputs`
  // (codegen/cpp_codegen.h; `title` names it); materializes weights like
  // execute. Throws Error when this backend or this executable has none.
  virtual codegen::GeneratedProgram generate_program(Executable& executable,
                                                     const std::map<std::string, Tensor>& inputs,
                                                     const std::string& title) {
    throw Error("backend '" + name() + "' does not generate code");
  }
};

}  // namespace meshtest::backend
