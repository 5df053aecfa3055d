// The env_option_overrides keys and value spellings that carry a case's
// compile settings to a PJRT plugin: those of tt-xla's plugin
// (tenstorrent/tt-xla, pjrt_implementation/src/api/compile_options.cc, with
// the valid values in pjrt_implementation/inc/api/compile_options.h and
// src/api/module_builder/module_builder.cc), which meshtest's client writes
// and meshtest's plugin reads the same way.
//
// How tt-xla reads them (src/api/compile_options_parser.cc): every override
// becomes text before any key is looked at: string_field as is, bool_field
// "true"/"false", int_field its decimal digits; double_field is printed from
// its raw 64 bits as an integer, so no setting is ever sent as a double.
// Booleans are then matched case-insensitively against true/1/yes/on and
// false/0/no/off (anything else aborts the plugin); integers go through
// std::stoi. tt-xla's own test harness sends every value as a string
// (tests/infra/testers/compiler_config.py, to_jax_compiler_options). A key
// that is absent keeps tt-xla's default (noted below); unknown keys are
// ignored.
#pragma once

#include <array>
#include <string_view>

namespace meshtest::pjrt::option_keys {

// ---- keys tt-xla reads ----

// Decimal integer 0, 1 or 2; default 0. (tt-xla also takes
// ExecutableBuildOptionsProto.optimization_level, field 24, when it is set;
// an override under this key wins.)
inline constexpr std::string_view kOptimizationLevel = "optimization_level";
// One of kMathFidelityNames or kMathFidelityTtnnDefault; absent: tt-mlir's
// default (HiFi4).
inline constexpr std::string_view kMathFidelity = "math_fidelity";
// kWeightDtypeBfp8 (or tt-xla's "bfp_bf4", which meshtest does not model);
// absent or empty: weights keep their dtype.
inline constexpr std::string_view kWeightDtype = "experimental_weight_dtype";
// Boolean; default false. Trace hoisting (replays the program without host
// dispatch); it does not change numerics.
inline constexpr std::string_view kEnableTrace = "enable_trace";
// Boolean; default true. Constant-folds weight-only subgraphs. (Not in kAll:
// meshtest neither writes nor reads it yet.)
inline constexpr std::string_view kEnableConstEval = "enable_const_eval";

// ---- meshtest's own keys (tt-xla has no switch for these) ----
// tt-xla's fusion keys each name one pattern
// (experimental_enable_fusing_conv2d_with_multiply_pattern,
// experimental_enable_permute_matmul_fusion, enable_create_d2m_subgraphs);
// meshtest's fuse pass is switched as a whole. tt-xla ignores these keys.

// Boolean; default true (the fuse pass runs from optimization level 1).
inline constexpr std::string_view kEnableFusion = "meshtest_enable_fusion";
// Boolean; default true (fusion into compiler-only composites: rms_norm, sdpa).
inline constexpr std::string_view kEnableCompositeOps = "meshtest_enable_composite_ops";

// Every key meshtest's client writes and meshtest's plugin reads.
inline constexpr std::array<std::string_view, 6> kAll = {kOptimizationLevel, kMathFidelity, kWeightDtype,
                                                         kEnableTrace,       kEnableFusion,  kEnableCompositeOps};

// ---- value spellings ----

// experimental_weight_dtype for bfp8_b weights (tt-mlir's BFP_BFloat8). For
// bf16 weights leave the key out (or send ""): tt-xla refuses "bf16" and
// "bfp8_b" (module_builder.cc: "Unknown experimental_weight_dtype").
inline constexpr std::string_view kWeightDtypeBfp8 = "bfp_bf8";

// math_fidelity, in the order of compiler::MathFidelity (LoFi .. HiFi4).
// tt-xla compares them exactly: "HiFi4" is refused (kInvalidArgument).
inline constexpr std::array<std::string_view, 4> kMathFidelityNames = {"lofi", "hifi2", "hifi3", "hifi4"};
// math_fidelity: leave each op's fidelity to ttnn.
inline constexpr std::string_view kMathFidelityTtnnDefault = "ttnn_default";

// Booleans as meshtest writes them, and every spelling tt-xla accepts
// (compared after lower-casing).
inline constexpr std::string_view kTrue = "true";
inline constexpr std::string_view kFalse = "false";
inline constexpr std::array<std::string_view, 4> kTrueSpellings = {"true", "1", "yes", "on"};
inline constexpr std::array<std::string_view, 4> kFalseSpellings = {"false", "0", "no", "off"};

}  // namespace meshtest::pjrt::option_keys
