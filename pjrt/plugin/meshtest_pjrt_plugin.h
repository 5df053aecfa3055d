// libpjrt_plugin_meshtest.so: meshtest's simulated chips as a PJRT C API
// plugin (PJRT API 0.114). It exports one symbol, `GetPjrtApi`. A thin
// adapter: Compile goes through meshtest's StableHLO reader and importer and
// the simulated backend's compile, Execute through its execute.
//
// The contract
//  * Every PJRT_Api field is set. A function the plugin does not implement
//    (plugin_stubs.cpp lists them with the reason) returns UNIMPLEMENTED
//    "meshtest PJRT plugin: PJRT_X is not implemented". No C++ exception
//    crosses the C ABI: OutOfMemoryError -> RESOURCE_EXHAUSTED, ParseError and
//    CompileError -> INVALID_ARGUMENT, anything else -> INTERNAL, the message
//    being meshtest's. Each entry point rejects an argument struct smaller than
//    its header's `PJRT_<Name>_Args_STRUCT_SIZE` with INVALID_ARGUMENT
//    "Unexpected PJRT_<Name>_Args size: expected N, got M" (larger is fine).
//  * Plugin: PJRT_Plugin_Initialize does nothing; PJRT_Plugin_Attributes gives
//    `meshtest_version` (string).
//  * Client: PJRT_Client_Create takes one option, `arch` (string, default
//    "n150"): the arch profile (runtime/arch/profiles.yaml) decides the chip
//    kind and the device count (n150: 1, n300: 2, n300-llmbox: 8, ...). An
//    unknown option or a wrong type is INVALID_ARGUMENT "unknown
//    PJRT_Client_Create option 'x' (meshtest reads: arch (string, ...))" /
//    "PJRT_Client_Create option 'arch' must be a string, got a int64 (...)";
//    an unknown arch is INVALID_ARGUMENT with the arch lookup's message
//    ("...: no arch profile 'x'; profiles: ..."). Platform name "meshtest",
//    version "meshtest <version> simulated <arch>", process index 0. One
//    device per chip, ids 0..N-1 (= local hardware id), all addressable; kind
//    = the chip spec's arch name ("n150", "n300-llmbox", ...), debug string
//    "meshtest:<id>", to-string "MeshtestDevice(id=<id>, arch=<arch>)", no
//    attributes. PJRT_Device_MemoryStats: bytes_in_use = bytes of the live
//    PJRT buffers on the device; peak_bytes_in_use = the chip's peak DRAM in
//    the last execution that used it (not set before one); bytes_limit = the
//    chip's DRAM; nothing else set.
//  * Compile (PJRT_Client_Compile): program format "mlir" only (else
//    INVALID_ARGUMENT "Unknown program format 'F': ..."), StableHLO as MLIR
//    text (bytecode, magic "ML\xEFR", is INVALID_ARGUMENT "MLIR bytecode is not
//    supported: give the program as MLIR text"). Read and imported as file
//    "<pjrt program>", so reader errors keep "<pjrt program>:line:col: ...".
//    Each entry argument is named by its `meshtest.name` (else jax.arg_info)
//    label when that name is free, else "arg<i>"; arguments with
//    `meshtest.kind = "weight"` are weights (the writer's mark_weights), the
//    rest inputs. Results are the entry function's results (check.expect_*
//    outputs dropped). compile_options is a serialized CompileOptionsProto
//    (pjrt/compile_options_proto.h): num_replicas x num_partitions = N > 1 makes
//    one SPMD program over N devices (N above the client's devices:
//    INVALID_ARGUMENT "program needs N devices, the client has M"); the
//    arguments' `mhlo.sharding` / `sdy.sharding` give the mesh (it must have N
//    chips; nothing split: a 1-D mesh of N) and the splits; device_assignment
//    picks the devices (default 0..N-1; device_ordinal for one device).
//    env_option_overrides carries the compile settings (compile_settings.h,
//    keys in pjrt/compile_option_keys.h); any other key is INVALID_ARGUMENT
//    "unknown compile option 'K' (meshtest reads: ...)". The simulated
//    backend compiles at once, weights as zero placeholders, so compile
//    errors, OOM of the memory plan and unsupported ops surface here.
//  * Executables: name (module name, else "main"), replicas, partitions,
//    outputs with their element types and dims, fingerprint (hash of program
//    text and compile options), addressable devices, delete.
//  * Buffers: plugin_buffers.h (dense row-major, always copied, F32 BF16 F16
//    F64 S8 S16 S32 S64 U8 U16 U32 U64 PRED). Events: born ready, OnReady
//    calls back at once.
//  * Execute: plugin_execute.h (one device, or SPMD: shards assembled, run
//    once on the mesh, every device gets whole outputs; new weight buffers
//    recompile, the same ones reuse the executable; outputs in the declared
//    types). Errors of the run (RuntimeError, OOM) are PJRT_Errors.
//  * Everything the plugin hands out is freed by its Destroy.
#pragma once

#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt::plugin {

// The plugin's function table (what GetPjrtApi returns).
const PJRT_Api* plugin_api();

}  // namespace meshtest::pjrt::plugin

extern "C" {
// The plugin's one exported symbol.
__attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi();
}
