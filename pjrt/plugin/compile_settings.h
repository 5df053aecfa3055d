// The compile settings a PJRT client sends in CompileOptionsProto's
// env_option_overrides (keys: pjrt/compile_option_keys.h), read into
// the device settings of meshtest's backend boundary (backend/device_settings.h). Every key must be one meshtest reads and of a
// form it takes, else an INVALID_ARGUMENT StatusError names the key:
//   optimization_level             int, or its decimal text; 0..2
//   math_fidelity                  string, any case: LoFi, HiFi2, HiFi3, HiFi4;
//                                  "ttnn_default" keeps the default (HiFi4)
//   experimental_weight_dtype      "bfp_bf8" or "bfp8_b" -> bfp8_b; "bf16" or "" -> bf16
//   enable_trace, meshtest_enable_fusion, meshtest_enable_composite_ops
//                                  bool, or the text true/1/yes/on, false/0/no/off (any case)
// Keys not given keep backend::DeviceSettings' defaults (trace off). A
// double is never a setting (tt-xla would misread one).
#pragma once

#include <map>
#include <string>

#include "backend/device_settings.h"
#include "pjrt/compile_options_proto.h"

namespace meshtest::pjrt::plugin {

struct CompileSettings {
  backend::DeviceSettings options;
  bool enable_trace = false;
};

CompileSettings read_compile_settings(const std::map<std::string, OptionOverride>& overrides);

}  // namespace meshtest::pjrt::plugin
