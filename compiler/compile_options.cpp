// CompileOptions helpers: math-fidelity names and the option fingerprint.
#include "compiler/compile_options.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace meshtest::compiler {

std::string_view math_fidelity_name(MathFidelity fidelity) {
  switch (fidelity) {
    case MathFidelity::LoFi:
      return "LoFi";
    case MathFidelity::HiFi2:
      return "HiFi2";
    case MathFidelity::HiFi3:
      return "HiFi3";
    case MathFidelity::HiFi4:
      return "HiFi4";
  }
  return "?";
}

MathFidelity parse_math_fidelity(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (MathFidelity f : {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
    std::string candidate(math_fidelity_name(f));
    std::transform(candidate.begin(), candidate.end(), candidate.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (candidate == lower) return f;
  }
  throw ParseError("unknown math fidelity '" + std::string(name) + "' (expected LoFi, HiFi2, HiFi3 or HiFi4)");
}

int fidelity_phases(MathFidelity fidelity) {
  switch (fidelity) {
    case MathFidelity::LoFi:
      return 1;
    case MathFidelity::HiFi2:
      return 2;
    case MathFidelity::HiFi3:
      return 3;
    case MathFidelity::HiFi4:
      return 4;
  }
  return 4;
}

int fidelity_mantissa_bits(MathFidelity fidelity, int operand) {
  const int phases = fidelity_phases(fidelity);
  // The weight's low slice first enters in phase 1, the activation's in phase 2.
  if (operand == 0) return phases > 2 ? kBf16MantissaBits : kActivationHighSliceBits;
  return phases > 1 ? kBf16MantissaBits : kWeightHighSliceBits;
}

std::string CompileOptions::fingerprint() const {
  std::string s = "level=" + std::to_string(optimization_level);
  s += ";weights=" + std::string(dtype_name(weight_dtype));
  s += ";fidelity=" + std::string(math_fidelity_name(math_fidelity));
  s += ";fusion=" + std::to_string(enable_fusion) + ";composite=" + std::to_string(enable_composite_ops);
  s += ";dram=" + std::to_string(dram_capacity_bytes) + ";l1=" + std::to_string(l1_capacity_bytes);
  s += ";skip=";
  for (const std::string& p : skip_passes) s += p + ",";
  if (sharding) s += ";" + sharding->fingerprint();
  return s;
}

}  // namespace meshtest::compiler
