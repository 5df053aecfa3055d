// Fuzz target: the -k/-m selection expression parser (runner/collection/expression).
// Any input either parses or throws ParseError; a parsed expression evaluates
// under both an all-true and an all-false matcher and lists its identifiers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "runner/collection/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const meshtest::runner::Expression e = meshtest::runner::Expression::parse(text, "-k");
    e.evaluate([](const std::string&) { return true; });
    e.evaluate([](const std::string& id) { return id.size() % 2 == 0; });
    e.identifiers();
  } catch (const meshtest::ParseError&) {
  }
  return 0;
}
