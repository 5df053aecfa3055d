// PJRT_LoadedExecutable and PJRT_Executable over a Program (plugin_program.h).
// PJRT_Client_Compile reads the program and compiles it on the simulated
// backend at once, its weights as placeholders, so compile errors, memory
// planning's OOM and unsupported ops surface there. An execution whose weight
// buffers differ from those the backend program was last compiled with
// compiles again with their data (weights_compiled); repeated executions with
// the same weights reuse it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.h"
#include "pjrt/plugin/plugin_program.h"
#include "xla/pjrt/c/pjrt_c_api.h"

struct PJRT_Executable {
  std::shared_ptr<const meshtest::pjrt::plugin::Program> program;
  // What the executable queries return, with the executable's lifetime.
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;      // every output's dims, concatenated
  std::vector<size_t> output_dim_sizes;  // rank of each output
};

struct PJRT_LoadedExecutable {
  PJRT_Client* client = nullptr;
  PJRT_Executable executable;
  std::vector<PJRT_Device*> devices;  // the program's devices, in chip order

  std::mutex mutex;  // guards the members below across concurrent executions
  std::unique_ptr<meshtest::backend::Executable> compiled;
  // Ids of the weight buffers `compiled` holds the data of; empty: placeholders.
  std::vector<uint64_t> compiled_weight_ids;
  bool deleted = false;
};

namespace meshtest::pjrt::plugin {

// The backend executable for the weights `weights` (buffer ids in
// `weight_ids`, both in argument order): `exe.compiled` when it was compiled
// with these, else a new compile with their data. Call with exe.mutex held.
backend::Executable& weights_compiled(PJRT_LoadedExecutable& exe, const std::vector<Tensor>& weights,
                                      const std::vector<uint64_t>& weight_ids);

// Binds PJRT_Client_Compile, PJRT_Executable_* and PJRT_LoadedExecutable_* (but Execute).
void bind_executable_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
