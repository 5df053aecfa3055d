// See openmp_wait_policy.h.
#include "runner/cli/openmp_wait_policy.h"

#include <unistd.h>

#include <cstdlib>

namespace meshtest::runner {

void ensure_passive_openmp(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // execv returned: no /proc, or the binary is gone. The variable stays set
  // for child processes; this process keeps libgomp's default.
}

const char* openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy != nullptr ? policy : "unset";
}

}  // namespace meshtest::runner
