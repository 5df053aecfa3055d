// C++ code generation (`meshtest codegen`, `meshtest run --emitc`): a
// compiled device program as a standalone, readable C++ program. One line per
// device instruction against the public device-kernel API
// (runtime/device/device_api.h, installed with the SDK package), tensors
// named after the IR values (parameters by name, op results %N as vN) with
// their device type in a comment, a CMakeLists.txt that finds the installed
// meshtest package, and the tensors it reads (weights as the device holds
// them, the host inputs) for a safetensors file beside it. The program reads
// that file and writes its outputs, as the host downloads them, to another.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/device_program.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::codegen {

// File names of a generated program folder.
inline constexpr const char* kSourceFile = "main.cpp";
inline constexpr const char* kBuildFile = "CMakeLists.txt";
inline constexpr const char* kTensorsFile = "tensors.safetensors";
inline constexpr const char* kExecutableName = "program";

struct GeneratedProgram {
  std::map<std::string, std::string> files;  // kSourceFile, kBuildFile -> text
  std::map<std::string, Tensor> tensors;     // what kTensorsFile holds
  std::vector<std::string> outputs;          // output names, in the program's order
  std::string hash;                          // of the files: same hash, same build
};

// Where a program runs: one chip (the default, 1x1), or every chip of a mesh
// running the same per-chip program, inputs split and outputs assembled as
// the mesh runtime does (runtime/mesh/mesh_runtime.h's MeshProgram).
struct MeshLayout {
  Mesh mesh{{1, 1}, {}};
  std::map<std::string, Sharding> inputs;   // global input name -> split (missing: replicated)
  std::map<std::string, Sharding> outputs;  // output name -> how chip results assemble (missing: chip 0's)
};

// `program` with its weights per chip (by buffer id, in each buffer's device
// dtype; one map on one chip) and the host `inputs` it runs on; `title`
// names the case in the header comment. A mesh program becomes one function
// per chip, meeting at the collectives (runtime/mesh/mesh_api.h). Throws
// CompileError when a weight or input is missing.
GeneratedProgram generate_cpp(const DeviceProgram& program, const std::vector<std::map<int32_t, Tensor>>& weights,
                              const std::map<std::string, Tensor>& inputs, const MeshLayout& layout,
                              const std::string& title);

// Writes the files and kTensorsFile into `dir` (created). Throws meshtest::Error.
void write_program(const GeneratedProgram& program, const std::string& dir);

}  // namespace meshtest::codegen
