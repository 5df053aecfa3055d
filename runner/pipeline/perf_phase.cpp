// Perf mode: warm-up, timed executions, median, modelled throughput.
#include "runner/pipeline/perf_phase.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace meshtest::runner {

int perf_iterations_for(const TestCase& test_case, int requested) {
  if (requested > 0) return requested;
  const auto& m = test_case.markers;
  return std::find(m.begin(), m.end(), "perf") != m.end() ? kDefaultPerfIterations : 0;
}

void run_perf(backend::Backend& backend, backend::Executable& executable,
              const std::map<std::string, Tensor>& inputs, int iterations, reports::CaseResult& record) {
  backend::MemoryStats stats;
  backend.execute(executable, inputs, stats);  // warm-up: weights resident, trace recorded
  std::vector<double> seconds;
  bool device_timed = true;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    stats.device_seconds = 0;
    backend.execute(executable, inputs, stats);
    const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A backend that times the device (a PJRT plugin: launch to completion
    // event) gives that; else the host's time of the whole call.
    seconds.push_back(stats.device_seconds > 0 ? stats.device_seconds : host);
    device_timed = device_timed && stats.device_seconds > 0;
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  record.perf_iterations = iterations;
  record.perf_device_timed = device_timed;
  record.perf_execute_seconds = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
}

}  // namespace meshtest::runner
