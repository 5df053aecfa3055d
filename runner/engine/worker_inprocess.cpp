// In-process execution: run_case directly, result available at once.
#include "runner/engine/worker_inprocess.h"

namespace meshtest::runner {

void InProcessExecutor::start(const TestCase& test_case, int attempt, const CaseLimits&) {
  reports::CaseResult r = run_case(test_case, options_);
  r.attempt = attempt;
  finished_.push_back(std::move(r));
}

std::vector<reports::CaseResult> InProcessExecutor::collect_finished(double) { return std::exchange(finished_, {}); }

}  // namespace meshtest::runner
