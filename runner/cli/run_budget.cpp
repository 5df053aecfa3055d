// run --budget's plan and its cases not started; collect --estimate's line.
#include "runner/cli/run_budget.h"

#include <cstdio>

#include "runner/engine/budget.h"

namespace meshtest::runner {

namespace {

constexpr int kHistoryRuns = 5;  // as the scheduler's: the median of a case's last five attempts

// "12 case(s), expected 10m02s on 2 worker(s) (3 without history on n150/simulated, each assumed 4.0s)".
std::string expectation_text(const std::vector<const TestCase*>& cases, const DurationEstimates& estimates,
                             size_t jobs) {
  const double wall = expected_wall_seconds(estimates, jobs);
  std::string text = std::to_string(cases.size()) + " case(s), expected " + duration_text(wall) + " on " +
                     std::to_string(jobs) + " worker(s)";
  if (estimates.assumed > 0) {
    text += " (" + std::to_string(estimates.assumed) + " without history, assumed the median of the others";
    text += estimates.assumed == cases.size() ? ": none has one, so a guess from the name)" : ")";
  }
  return text;
}

}  // namespace

std::map<std::string, reports::CaseHistory> budget_history(reports::ResultStore* store, const std::string& arch,
                                                           const std::string& backend,
                                                           const std::string& started_before) {
  if (!store) return {};
  return store->case_history(kHistoryRuns, started_before, {arch, backend});
}

void plan_budget(const std::string& budget, const std::vector<const TestCase*>& cases,
                 const std::map<std::string, reports::CaseHistory>& history, LoopOptions& loop, std::ostream& console) {
  loop.budget_seconds = parse_duration(budget);
  const DurationEstimates estimates = estimate_durations(cases, history);
  loop.expected_seconds = estimates.seconds;
  console << "--budget " << budget << ": " << expectation_text(cases, estimates, loop.jobs)
          << "; a case starts only while it can still finish within the budget\n";
}

void record_not_started(const LoopResult& result, reports::SpooledStore* store, const std::string& run_id,
                        const std::string& arch, const std::string& budget, std::ostream& console) {
  const std::vector<std::string>& ids = result.not_started_for_budget;
  if (ids.empty()) return;
  console << "--budget " << budget << ": " << ids.size()
          << " case(s) not started (they could not finish within the budget); MISSING with the reason \""
          << kNotRunForBudget << "\":\n";
  constexpr size_t kListed = 20;  // a nightly's thousands stay in the store (meshtest runs, report, diff)
  for (size_t i = 0; i < ids.size() && i < kListed; ++i) console << "  " << ids[i] << "\n";
  if (ids.size() > kListed) console << "  ... and " << ids.size() - kListed << " more (meshtest diff lists them)\n";
  if (store) store->mark_not_run(run_id, arch, ids, kNotRunForBudget);
}

void print_estimate(std::ostream& out, const std::vector<const TestCase*>& cases,
                    const std::map<std::string, reports::CaseHistory>& history, size_t jobs, const std::string& arch,
                    const std::string& backend) {
  const DurationEstimates estimates = estimate_durations(cases, history);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", expected_wall_seconds(estimates, jobs));
  out << "estimate on " << arch << " (" << backend << "): " << expectation_text(cases, estimates, jobs) << " ["
      << seconds << " s]\n";
}

}  // namespace meshtest::runner
