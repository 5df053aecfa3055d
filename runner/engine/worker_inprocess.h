// --isolation none: cases run one at a time in the runner's own process
// (for gdb). No timeouts, no output capture; a crash ends the run.
#pragma once

#include "runner/engine/worker_executor.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

class InProcessExecutor : public CaseExecutor {
 public:
  explicit InProcessExecutor(PipelineOptions options) : options_(std::move(options)) {}
  void start(const TestCase& test_case, int attempt, const CaseLimits& limits) override;
  std::vector<reports::CaseResult> collect_finished(double wait_seconds) override;
  size_t running() const override { return finished_.size(); }

 private:
  PipelineOptions options_;
  std::vector<reports::CaseResult> finished_;
};

}  // namespace meshtest::runner
