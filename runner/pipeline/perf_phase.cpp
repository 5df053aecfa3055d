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
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    backend.execute(executable, inputs, stats);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  record.perf_iterations = iterations;
  record.perf_execute_seconds = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
}

}  // namespace meshtest::runner
