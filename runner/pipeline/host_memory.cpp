// /proc-based peak RSS measurement.
#include "runner/pipeline/host_memory.h"

#include <fstream>
#include <string>

namespace meshtest::runner {

int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

void reset_peak_rss() {
  std::ofstream refs("/proc/self/clear_refs");
  if (refs) refs << "5";
}

}  // namespace meshtest::runner
