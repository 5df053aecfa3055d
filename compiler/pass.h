// The pass interface: what every compiler pass transforms (a CompileUnit:
// the graph, and once `lower` has run, the device program), and the one
// visible registry of passes in pipeline order (pass_registry.cpp), which
// also drives `meshtest-opt --help`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile_options.h"
#include "compiler/sharding.h"
#include "core/device_program.h"
#include "core/graph.h"

namespace meshtest::compiler {

struct CompileUnit {
  Graph graph;
  std::optional<DeviceProgram> program;  // set by the `lower` pass
  CompileOptions options;
  // Pass statistics, "<pass>.<counter>" -> count (e.g. "fuse.rms_norm": 16).
  std::map<std::string, int64_t> stats;
  // Set by the `shard` pass: how the per-chip graph relates to the global one.
  std::optional<ShardingPlan> sharding = std::nullopt;

  void count(std::string_view key, int64_t n = 1) { stats[std::string(key)] += n; }
};

struct PassInfo {
  std::string_view name;
  std::string_view summary;  // one line, shown by meshtest-opt --help
  // Whether the default pipeline runs this pass for these options.
  bool (*enabled)(const CompileOptions& options);
  void (*run)(CompileUnit& unit);
  bool needs_program;  // runs on the device program (after `lower`)
};

// Every pass, in the order of the default pipeline.
const std::vector<PassInfo>& pass_registry();
// The pass named `name`, or nullptr.
const PassInfo* find_pass(std::string_view name);

// The device program of `unit`; throws CompileError naming `pass` when the
// graph has not been lowered yet.
DeviceProgram& program_of(CompileUnit& unit, std::string_view pass);

}  // namespace meshtest::compiler
