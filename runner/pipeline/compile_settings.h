// Compile-related settings of `meshtest run` (CLI), resolved per case
// against the case's test_config entry: the CLI wins, then the YAML, then
// the defaults.
#pragma once

#include <optional>
#include <string>

namespace meshtest::runner {

// --stream-weights (docs/explanation/streamed-weights.md): whether a case's
// weights are made when an op first needs them and freed after its last use,
// on the golden and on the chips, instead of all at load. Auto streams when
// the model's weights take more than 1 GiB (or a share of the host's memory
// where that is less: runner/pipeline/weight_streaming.h).
enum class WeightStreaming { Auto, On, Off };

struct CompileSettings {
  std::optional<int> optimization_level;  // --optimization-level (else YAML optimization_level, else
                                          // backend::DeviceSettings)
  std::optional<bool> weight_bfp8;        // --experimental-weight-dtype (else YAML enable_weight_bfp8_conversion,
                                          // else backend::DeviceSettings' bf16)
  std::optional<std::string> math_fidelity;  // --math-fidelity LoFi|HiFi2|HiFi3|HiFi4 (else YAML math_fidelity,
                                             // else backend::DeviceSettings' HiFi4)
  bool enable_fusion = true;              // --disable-fusion turns it off
  bool enable_composite_ops = true;       // --disable-composite-ops turns it off
  std::string serialize_dir;              // --serialize DIR: IR after every pass, per case
  bool compile_only = false;              // --compile-only: stop after memory planning
  bool use_cache = true;                  // --no-compile-cache turns it off
  std::string cache_dir;                  // empty: backend::default_cache_dir()
  WeightStreaming stream_weights = WeightStreaming::Auto;  // --stream-weights auto|on|off
  // `meshtest export --format stablehlo` (runner/pipeline/stablehlo_stage.h): the folder that gets
  // <case folder>.mlir (+ .safetensors), written before the compile; how the graph is written.
  std::string stablehlo_export_dir;
  bool stablehlo_inline_weights = false;  // --inline-weights
  bool stablehlo_composites = false;      // --composites
};

}  // namespace meshtest::runner
