// Fuzz target: the test_config YAML loader (config/test_config). Every problem
// must come back as a positioned diagnostic; nothing may throw or crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "config/test_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  meshtest::config::TestConfig config;
  std::vector<meshtest::config::Diagnostic> diagnostics;
  meshtest::config::load_test_config_text(text, "fuzz.yaml", config, diagnostics);
  for (const meshtest::config::Diagnostic& d : diagnostics) d.to_string();
  return 0;
}
