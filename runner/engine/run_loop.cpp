// Scheduling, retries and recording of one run.
#include "runner/engine/run_loop.h"

#include <algorithm>
#include <chrono>

#include "runner/engine/budget.h"
#include "runner/engine/console_report.h"
#include "runner/engine/scheduler.h"

namespace meshtest::runner {

using reports::CaseResult;
using reports::Outcome;

bool should_retry(Outcome outcome, int attempt, int reruns) {
  return (outcome == Outcome::Failed || outcome == Outcome::Error) && attempt <= reruns;
}

CaseLimits limits_for(const TestCase& t, const LoopOptions& o) {
  CaseLimits limits;
  limits.timeout_seconds = t.expectation.timeout_seconds.value_or(o.timeout_seconds);
  if (std::find(t.markers.begin(), t.markers.end(), "notimeout") != t.markers.end()) limits.timeout_seconds = 0;
  limits.hang_seconds = o.hang_seconds;
  limits.max_rss_bytes = o.max_rss_bytes;
  return limits;
}

LoopResult run_cases(const std::vector<const TestCase*>& cases,
                     const std::map<std::string, reports::CaseHistory>& history, CaseExecutor& executor,
                     const LoopOptions& options, Progress& progress,
                     const std::function<void(const CaseResult&)>& record) {
  std::vector<ScheduledJob> jobs;
  for (const TestCase* t : cases) {
    const auto first = options.first_attempt.find(t->id);
    jobs.push_back({t, estimate_cost(*t, history), first == options.first_attempt.end() ? 1 : first->second,
                    options.run_first.count(t->id) > 0});
  }
  Scheduler scheduler(std::move(jobs), options.memory_budget);
  if (options.budget_seconds <= 0) return run_jobs(scheduler, executor, options, progress, record);
  const auto start = std::chrono::steady_clock::now();
  BudgetedSource budgeted(scheduler, options.expected_seconds, options.budget_seconds, [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  LoopResult out = run_jobs(budgeted, executor, options, progress, record);
  out.not_started_for_budget = budgeted.not_started();
  return out;
}

LoopResult run_jobs(JobSource& source, CaseExecutor& executor, const LoopOptions& options, Progress& progress,
                    const std::function<void(const CaseResult&)>& record) {
  std::map<std::string, ScheduledJob> by_id;  // the jobs running
  int64_t memory_in_use = 0;
  LoopResult out;
  const auto stop_requested = [&] { return options.stop_requested && options.stop_requested(); };
  while ((!out.max_failures_reached && !source.empty()) || executor.running() > 0) {
    if (stop_requested()) {
      out.stopped = true;
      break;
    }
    while (!out.max_failures_reached && executor.running() < std::max<size_t>(1, options.jobs)) {
      std::optional<ScheduledJob> job = source.next(memory_in_use, executor.running());
      if (!job) break;
      memory_in_use += job->cost.bytes;
      by_id[job->test_case->id] = *job;
      progress.started(job->test_case->id);
      executor.start(*job->test_case, job->attempt, limits_for(*job->test_case, options));
    }
    for (CaseResult& r : executor.collect_finished(0.1)) {
      // A worker the stopping signal killed too (sent to the whole process group) is no result.
      if (r.failure_kind == reports::FailureKind::Crash && stop_requested()) continue;
      ScheduledJob job = by_id.at(r.test_id);
      memory_in_use -= job.cost.bytes;
      if (r.attempt > 1 && r.outcome == Outcome::Passed) r.markers.push_back("flaky");
      // Here, in the parent, once for every executor: crashes and timeouts get a class too.
      if (options.failure_classes) reports::record_failure_class(*options.failure_classes, r);
      record(r);
      const bool retry = should_retry(r.outcome, r.attempt, options.reruns);
      progress.finished(r, !retry);
      if (retry) {
        job.attempt = r.attempt + 1;
        source.retry(job);
        out.reruns.push_back(r);
        continue;
      }
      source.finished(job);
      if (is_unexpected(r)) ++out.unexpected;
      if (options.maxfail > 0 && out.unexpected >= options.maxfail) out.max_failures_reached = true;
      out.final_results.push_back(std::move(r));
    }
    progress.tick();
    source.tick();
  }
  progress.close();
  std::sort(out.final_results.begin(), out.final_results.end(),
            [](const CaseResult& a, const CaseResult& b) { return a.test_id < b.test_id; });
  return out;
}

}  // namespace meshtest::runner
