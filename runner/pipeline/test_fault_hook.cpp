// MESHTEST_TEST_FAIL_PHASE (see test_fault_hook.h).
#include "runner/pipeline/test_fault_hook.h"

#include <cstdlib>
#include <string>

#include "core/error.h"

namespace meshtest::runner {

void fail_phase_if_injected(std::string_view test_id, std::string_view phase) {
  const char* spec = std::getenv("MESHTEST_TEST_FAIL_PHASE");
  if (spec == nullptr) return;
  std::string_view rest(spec);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t colon = item.rfind(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    if (item.substr(colon + 1) == phase && test_id.find(item.substr(0, colon)) != std::string_view::npos) {
      throw RuntimeError("injected failure entering phase " + std::string(phase) + " (MESHTEST_TEST_FAIL_PHASE)");
    }
  }
}

}  // namespace meshtest::runner
