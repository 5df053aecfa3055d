// What PJRT_Client_Compile makes of a program before the backend sees it:
// the StableHLO text read and imported (file name "<pjrt program>"), the
// entry arguments named and typed (inputs, or weights when marked
// `meshtest.kind = "weight"`), the compile settings, the devices it runs on
// and, for an SPMD program over N > 1 devices, the mesh and the splits of its
// arguments as a compiler sharding request.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/graph.h"
#include "core/sharding.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

// The file name parse and import errors carry ("<pjrt program>:3:7: ...").
inline constexpr const char* kProgramFileName = "<pjrt program>";

struct ProgramArgument {
  std::string name;  // the parameter it feeds: its `meshtest.name` label, else "arg<i>"
  TensorType type;
  bool weight = false;
  Sharding split;  // SPMD: how each device's buffer is cut from the global value (replicated otherwise)
};

struct Program {
  std::string name;  // the module's name, else "main"
  // The imported graph; weights are placeholders (Initializer::constant(0))
  // until an execution gives their data.
  Graph graph;
  std::vector<ProgramArgument> arguments;  // by position
  std::vector<TensorType> results;         // graph.outputs, in order: the entry function's results
  backend::CompileRequest request;         // options; options.sharding set on a mesh
  Mesh mesh;                               // the 1x1 mesh on one device
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  std::vector<int> device_ids;  // the devices it runs on: one, or one per mesh chip (chip id order)
  std::string fingerprint;      // of the program text and the compile options
};

// Reads `program` with its serialized CompileOptionsProto for `devices`
// devices. Throws StatusError / ParseError / CompileError (all mapped to
// INVALID_ARGUMENT) for a wrong format, MLIR bytecode, bad text or options.
std::shared_ptr<const Program> read_program(const PJRT_Program* program, std::string_view compile_options,
                                            int64_t devices);

}  // namespace meshtest::pjrt::plugin
