// `run --budget` and `collect --estimate`: each case's expected duration from
// the store's history (per arch and backend: the median wall time of its
// recent attempts), an assumed one for a case without history (the median of
// the cases that have one; with none known, the scheduler's guess from the
// name), the expected wall time of a selection on N workers, and the job
// source that starts a case only while it can still finish within the budget
// (a running case is never stopped for it).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "reports/result_store.h"
#include "runner/engine/scheduler.h"

namespace meshtest::runner {

struct DurationEstimates {
  std::map<std::string, double> seconds;  // every case's, by test id
  size_t assumed = 0;                     // cases without history
};

DurationEstimates estimate_durations(const std::vector<const TestCase*>& cases,
                                     const std::map<std::string, reports::CaseHistory>& history);

// The cases longest first, each onto the worker free first: when the last
// of `jobs` workers finishes (memory limits aside).
double expected_wall_seconds(const DurationEstimates& estimates, size_t jobs);

// "4h", "30m", "90s", "1h30m", "2.5h" or plain seconds ("600"); > 0. Throws ParseError.
double parse_duration(const std::string& text);
// "1h05m", "3m20s", "4.2s".
std::string duration_text(double seconds);

// Hands out `inner`'s jobs while `elapsed()` + the job's expected seconds
// fits in the budget; a job that does not fit will never fit later, so it is
// set aside at once (not_started()). A retry (--reruns) continues a case
// already started and is not held to the budget.
class BudgetedSource : public JobSource {
 public:
  BudgetedSource(JobSource& inner, std::map<std::string, double> expected_seconds, double budget_seconds,
                 std::function<double()> elapsed);
  std::optional<ScheduledJob> next(int64_t memory_in_use, size_t running) override;
  void retry(ScheduledJob job) override;
  bool empty() override { return inner_.empty(); }
  void finished(const ScheduledJob& job) override { inner_.finished(job); }
  void tick() override { inner_.tick(); }

  // The cases set aside, in the order they were.
  const std::vector<std::string>& not_started() const { return not_started_; }

 private:
  JobSource& inner_;
  std::map<std::string, double> expected_;
  double budget_;
  std::function<double()> elapsed_;
  std::set<std::string> retried_;
  std::vector<std::string> not_started_;
};

}  // namespace meshtest::runner
