// The run loop: schedules the selected cases onto an executor (-j slots, a
// memory budget), retries failures (--reruns), hands every attempt to
// `record` as it finishes (so a killed run loses nothing recorded), drives
// the progress display, and stops early when asked (LoopOptions::stop_requested).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "reports/case_result.h"
#include "reports/failure_classes.h"
#include "reports/result_store.h"
#include "runner/engine/progress.h"
#include "runner/engine/scheduler.h"
#include "runner/engine/worker_executor.h"

namespace meshtest::runner {

struct LoopOptions {
  size_t jobs = 1;
  int64_t memory_budget = 0;   // total bytes for running cases; 0: unlimited
  int reruns = 0;              // extra attempts for a failed case
  double timeout_seconds = 0;  // default deadline per case; 0: none
  double hang_seconds = 60;
  int64_t max_rss_bytes = 0;  // per worker; 0: unlimited
  // --resume: cases continuing after a recorded failed attempt start at this
  // attempt (test id -> attempt); every other case starts at 1.
  std::map<std::string, int> first_attempt;
  // --ff: these cases (failed last time) start before the others.
  std::set<std::string> run_first;
  // -x / --maxfail N: after N unexpected results no case starts any more;
  // the running ones finish. 0: no limit.
  size_t maxfail = 0;
  // run --budget: a case starts only while it can still finish within this
  // many seconds of the loop's start, by `expected_seconds` (test id ->
  // seconds; runner/engine/budget.h); running cases are never stopped for
  // it. 0: no budget.
  double budget_seconds = 0;
  std::map<std::string, double> expected_seconds;
  // Polled between steps: when it says true (a signal, a store given up on),
  // no case starts any more and the loop returns; running cases get no result.
  std::function<bool()> stop_requested;
  // Every attempt's failure class is set from these before it is recorded
  // (reports/failure_classes.h); null: results keep theirs.
  const reports::FailureClasses* failure_classes = nullptr;
};

struct LoopResult {
  std::vector<reports::CaseResult> final_results;  // the last attempt of each case
  size_t unexpected = 0;                           // decides exit status 1
  bool stopped = false;                            // stop_requested ended the loop early
  bool max_failures_reached = false;               // --maxfail ended the loop early
  std::vector<reports::CaseResult> reruns;         // attempts that failed and were run again (--reruns)
  std::vector<std::string> not_started_for_budget;  // --budget: cases it did not start (no result)
};

// The limits of one case: YAML `timeout` over --timeout; marker `notimeout` disables the deadline.
CaseLimits limits_for(const TestCase& test_case, const LoopOptions& options);

// Whether an attempt that ended with `outcome` is retried under --reruns.
bool should_retry(reports::Outcome outcome, int attempt, int reruns);

// Whether a final result makes the run fail (YAML `flaky: true` cases never do).
bool fails_run(const TestCase& test_case, const reports::CaseResult& result);

// Runs the jobs `source` hands out until it is empty.
LoopResult run_jobs(JobSource& source, CaseExecutor& executor, const LoopOptions& options, Progress& progress,
                    const std::function<void(const reports::CaseResult&)>& record);

// The jobs of `cases`, longest first (by `history`), from a Scheduler.
LoopResult run_cases(const std::vector<const TestCase*>& cases,
                     const std::map<std::string, reports::CaseHistory>& history, CaseExecutor& executor,
                     const LoopOptions& options, Progress& progress,
                     const std::function<void(const reports::CaseResult&)>& record);

}  // namespace meshtest::runner
