// Math fidelity names of DeviceSettings.
#include "backend/device_settings.h"

#include <cctype>

#include "core/error.h"

namespace meshtest::backend {

size_t math_fidelity_index(std::string_view name) {
  for (size_t i = 0; i < kMathFidelities.size(); ++i) {
    const std::string_view known = kMathFidelities[i];
    if (known.size() != name.size()) continue;
    bool same = true;
    for (size_t c = 0; c < name.size() && same; ++c) {
      same = std::tolower(static_cast<unsigned char>(name[c])) == std::tolower(static_cast<unsigned char>(known[c]));
    }
    if (same) return i;
  }
  throw ParseError("unknown math fidelity '" + std::string(name) + "' (expected LoFi, HiFi2, HiFi3 or HiFi4)");
}

std::string canonical_math_fidelity(std::string_view name) {
  return std::string(kMathFidelities[math_fidelity_index(name)]);
}

}  // namespace meshtest::backend
