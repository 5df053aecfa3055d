// How the run loop executes cases, whatever the isolation: start a case,
// then collect finished records. Process isolation (ProcessPool) and
// in-process execution (InProcessExecutor) implement it; tests can fake it.
#pragma once

#include <vector>

#include "reports/case_result.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

// The limits one case runs under (process isolation only).
struct CaseLimits {
  double timeout_seconds = 0;  // 0: no deadline
  double hang_seconds = 60;    // no heartbeat for this long: hang
  int64_t max_rss_bytes = 0;   // 0: unlimited
};

class CaseExecutor {
 public:
  virtual ~CaseExecutor() = default;
  virtual void start(const TestCase& test_case, int attempt, const CaseLimits& limits) = 0;
  // Finished records, waiting up to `wait_seconds` for at least one.
  virtual std::vector<reports::CaseResult> collect_finished(double wait_seconds) = 0;
  virtual size_t running() const = 0;
};

}  // namespace meshtest::runner
