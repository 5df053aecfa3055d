// Fuzz target: the IR text parser (core/ir_parser). Any input either parses
// into a verified graph or throws meshtest::Error; a parsed graph must
// round-trip: print(parse(print(g))) == print(g).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/ir_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string printed;
  try {
    printed = meshtest::print_graph(meshtest::parse_graph(text, "fuzz.mtir"));
  } catch (const meshtest::Error&) {
    return 0;
  }
  const std::string reprinted = meshtest::print_graph(meshtest::parse_graph(printed, "printed.mtir"));
  if (reprinted != printed) {
    std::fprintf(stderr, "round trip differs:\n%s\n---\n%s\n", printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
