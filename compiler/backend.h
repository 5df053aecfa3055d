// The backend boundary (versioned, deliberately small): a device backend
// compiles a graph for a target with options into an Executable, and executes
// an Executable on inputs into outputs plus memory statistics. The runner
// only talks to this interface; the simulated backend (runner/
// simulated_backend.h) is one implementation, a real accelerator another.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace meshtest::compiler {

// Bumped on any incompatible change of Backend or Executable.
// 2: meshes (CompileOptions::sharding, CompileRequest::enable_trace, per-chip
//    and collective figures in CompileInfo / MemoryStats).
constexpr int kBackendApiVersion = 2;

// What compiling produced, for reports (same for a cache hit).
struct CompileInfo {
  bool cache_hit = false;
  std::string cache_warning;             // a corrupted/foreign entry that was ignored
  std::map<std::string, int64_t> stats;  // pass statistics
  std::vector<PassRun> passes;           // empty on a cache hit
  int64_t planned_peak_dram_bytes = 0;   // per chip
  int64_t planned_peak_l1_bytes = 0;     // per chip
  int64_t device_ops = 0;
  std::string mesh = "1x1";                     // the mesh the program was compiled for
  std::vector<std::string> sharding_fallbacks;  // ops the shard pass gathered to replicated
  int64_t collectives = 0;                      // collective instructions per execution
};

struct MemoryStats {
  int64_t peak_dram_bytes = 0;  // per chip (the highest chip on a mesh)
  int64_t peak_l1_bytes = 0;    // per chip (the highest chip on a mesh)
  int64_t ops_executed = 0;     // per chip
  std::vector<int64_t> per_chip_peak_dram_bytes;  // index = chip id
  int64_t collectives_executed = 0;
  int64_t bytes_moved_between_chips = 0;
  int64_t device_bytes_leaked = 0;  // still allocated after the execution, all chips
};

class Executable {
 public:
  virtual ~Executable() = default;
  virtual const CompileInfo& info() const = 0;
};

struct CompileRequest {
  CompileOptions options;
  DumpHook dump;  // sees the unit after every pass (not called on a cache hit)
  // The first execution records its dispatch sequence, later ones replay it.
  bool enable_trace = false;
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
};

}  // namespace meshtest::compiler
