// The device compiler entry points: graph in, device program out, through
// the pass pipeline of compiler/pass_registry.cpp (verify, decompose, fuse,
// const-eval, lower, lower-dtypes, tile-layout, plan-memory; the optimization
// level selects which run, see CompileOptions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/pass_manager.h"
#include "core/device_program.h"
#include "core/graph.h"

namespace meshtest::compiler {

// Bumped whenever the compiler's output may change for the same input; part
// of every compile-cache key.
constexpr const char* kCompilerVersion = "meshtest-compiler 4";

struct CompileResult {
  // Memory-planned program. Its weights hold only data the compiler made
  // (const-eval) or the graph carried as data; load_weights adds the rest.
  DeviceProgram program;
  std::map<std::string, int64_t> stats;  // pass statistics ("fuse.ops_fused", ...)
  std::vector<PassRun> passes;           // what ran, how long
  std::optional<ShardingPlan> sharding = std::nullopt;  // set when the options carried a mesh
};

// Runs the default pipeline for `options` on a copy of `graph`. `dump` sees
// the unit after every pass (for --serialize). Never materializes a lazy
// weight except small ones const-eval folds. Throws CompileError naming the
// op (and pass), or OutOfMemoryError naming the largest live tensors.
CompileResult compile_program(const Graph& graph, const CompileOptions& options, const DumpHook& dump = {});

// Gives every weight buffer of `program` its data in its device dtype,
// materializing lazy weights of `graph` (the graph the program came from).
void load_weights(const Graph& graph, DeviceProgram& program);
// One weight buffer's data as load_weights gives it (streamed weights: the
// buffer's data made only when a chip reads it).
Tensor load_weight(const Graph& graph, const DeviceProgram& program, const DeviceBuffer& buffer);

// compile_program + load_weights: a program ready to execute.
DeviceProgram compile(const Graph& graph, const CompileOptions& options);

}  // namespace meshtest::compiler
