// What a case asks of the device, whatever the backend: the settings a YAML
// entry and the CLI give (`optimization_level`, `math_fidelity`,
// `enable_weight_bfp8_conversion`, `--disable-fusion`, ...), resolved once
// per case (CLI over YAML over the defaults here). Each backend takes them
// its own way — the simulated backend as its compiler's options, the pjrt
// backend as the compile-option keys a plugin reads — and reports those it
// cannot apply (CompileInfo::options_not_applied).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "core/dtype.h"

namespace meshtest::backend {

// Multiplier precision of matrix ops, by name (most to least exact last).
inline constexpr std::array<std::string_view, 4> kMathFidelities = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};

struct DeviceSettings {
  int optimization_level = 0;          // 0 safest; 1 adds const-eval and fusion; 2 adds on-chip placement
  DType weight_dtype = DType::BF16;    // matmul / linear / conv weights: bf16 or bfp8_b
  std::string math_fidelity = "HiFi4";  // one of kMathFidelities
  bool enable_fusion = true;           // fusion as a whole (level >= 1)
  bool enable_composite_ops = true;    // fusion into composites (rms_norm, sdpa)
};

// The kMathFidelities entry `name` names, case-insensitively; throws
// ParseError listing them.
std::string canonical_math_fidelity(std::string_view name);
// Its position in kMathFidelities (LoFi 0 .. HiFi4 3); throws as above.
size_t math_fidelity_index(std::string_view name);

}  // namespace meshtest::backend
