// The `pjrt` backend (`meshtest run --backend pjrt --pjrt-plugin PATH`): each
// case's graph is written as StableHLO (frontends/stablehlo/stablehlo_writer.h,
// weights as arguments after the inputs, marked `meshtest.kind = "weight"`,
// composites for fused ops) and compiled by the plugin; inputs and weights
// are transferred, the program executed with its completion awaited, and the
// outputs read back. The case's compile settings travel as
// CompileOptionsProto env_option_overrides under tt-xla's keys
// (pjrt/compile_option_keys.h) to plugins that read them (platform "meshtest"
// or "tt"); for any other plugin they are recorded as not applied, except the
// weight dtype, which is applied on the host (weights rounded to bf16 or
// bfp8_b before the transfer: the numbers the device would hold).
// A mesh case is one SPMD program over the mesh's chips as PJRT devices
// (num_partitions, device assignment, `mhlo.sharding` on split arguments):
// each device gets its shard of every split argument, device 0's outputs are
// the result (the program's outputs are whole on every device). A plugin
// with fewer devices than the mesh throws DevicesUnavailable: the case is
// skipped with the reason.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "backend/registry.h"

namespace meshtest::pjrt {

// Throws PluginLoadError (the plugin does not open or fails the checks) or
// ParseError (a bad --pjrt-option); opening the client waits for the first compile.
std::unique_ptr<backend::Backend> make_pjrt_backend(const backend::BackendConfig& config);

// What `meshtest run` checks before any case: a plugin is named (else
// Error saying how), it opens and passes pjrt/plugin_library.h's checks,
// and every option parses. Throws with the message the run exits 2 with.
void check_pjrt_config(const backend::BackendConfig& config);

}  // namespace meshtest::pjrt
