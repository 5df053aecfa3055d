// PJRT_LoadedExecutable_Execute. One device: the program runs on it (the
// compiled device, or execute_device). SPMD over N devices: each argument's
// global value is assembled from the N devices' shards by its split
// (replicated: device 0's buffer), the program runs once on the simulated
// mesh, and every device gets the whole of each output. Weight arguments'
// data replaces the compile-time placeholders (plugin_executable.h). Outputs
// have the element type and shape the program declares. Every argument
// buffer must have its argument's type (on SPMD, a split argument its shard's
// shape), else INVALID_ARGUMENT naming the argument and the device.
#pragma once

#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

// Binds PJRT_LoadedExecutable_Execute.
void bind_execute_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
