// The compile phase of a case: options resolved from CLI and YAML, the
// backend's compile (with the compile cache), IR dumps for --serialize, and
// the YAML `filechecks` run through FileCheck against those dumps.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/registry.h"
#include "config/test_config.h"
#include "reports/case_result.h"
#include "runner/pipeline/compile_settings.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runner {

struct CompiledCase {
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<backend::Executable> executable;
};

// The case's device settings: CLI first, then the YAML entry, then
// backend::DeviceSettings' defaults. Throws ParseError for a bad math
// fidelity name.
backend::DeviceSettings resolve_device_settings(const CompileSettings& settings, const config::TestEntry& entry);

// A case's folder (--serialize, --save-tensors, kept FileCheck inputs): the
// test id with every character outside [A-Za-z0-9._-] made '_' (so '/' too).
// The one statement of the rule, shown by `run --help`.
inline constexpr const char* kCaseFolderRule =
    "<case folder>: the test id with every character other than letters, digits, '.', '_', '-' made '_' "
    "(resnet/native-resnet18-single_device-inference -> resnet_native-resnet18-single_device-inference)";
std::string sanitize_test_id(const std::string& id);

// Where a case compiles for: one chip of the arch (the 1x1 mesh), or a mesh
// of its chips, on the named backend (backend/registry.h).
struct CompileTarget {
  std::string backend = std::string(backend::kDefaultBackend);
  backend::DeviceSettings device;  // resolve_device_settings: the case's CLI and YAML settings
  runtime::ChipSpec chip;
  int chips = 1;                                             // chips the arch has
  std::shared_ptr<const ShardingRequest> sharding;  // null: one chip
  bool enable_trace = false;
  bool stream_weights = false;  // backend::CompileRequest::stream_weights
  std::string pjrt_plugin;                // backend::BackendConfig::pjrt_plugin
  std::vector<std::string> pjrt_options;  // backend::BackendConfig::pjrt_options
};

// Compiles `graph` for the case and fills the record's compile fields
// (compile_cache_hit, compile_stats, kernel_variants, planned peaks, device_ops, the backend's
// platform and device; on a mesh also mesh and sharding_fallbacks). Dumps go to
// <serialize_dir>/<case folder>/ as they are made; filechecks then run
// against them. Throws on compile or FileCheck failure (the compile phase);
// a FileCheck failure keeps the dumps, the input and FileCheck's output in
// the case folder (--serialize's, else $TMPDIR/meshtest-filecheck/<case folder>).
CompiledCase compile_case(const std::string& test_id, const config::TestEntry& entry, const Graph& graph,
                          const CompileSettings& settings, const CompileTarget& target, reports::CaseResult& record);

// Compiles `graph` for `target` and nothing else (no record, dumps or
// filechecks): a program a case runs on the way, such as a decode case's
// prefill. `settings`: the cache.
CompiledCase compile_graph(const Graph& graph, const CompileSettings& settings, const CompileTarget& target);

// Fills the record's execution figures from what the backend measured:
// peak DRAM (per chip and the highest), L1 per core, ops, mesh traffic, leaks.
void record_execution_stats(const backend::MemoryStats& stats, const runtime::ChipSpec& chip,
                            reports::CaseResult& record);

}  // namespace meshtest::runner
