// Test ids of the fault-injection loader's cases (fixture_loaders/fault_loader.cpp),
// for the whole-binary tests that run them.
#pragma once

#include <string>
#include <vector>

namespace meshtest::testing::faults {

// The single-device inference case of one fault variant ("ok", "segfault", ...).
inline std::string id(const std::string& variant) { return "faults/native-" + variant + "-single_device-inference"; }

// " id(a) id(b) ...": the cases of these variants, as command-line arguments.
inline std::string ids(const std::vector<std::string>& variants) {
  std::string out;
  for (const auto& v : variants) out += " " + id(v);
  return out;
}

}  // namespace meshtest::testing::faults
