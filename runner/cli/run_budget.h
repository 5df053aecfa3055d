// `run --budget DURATION` and `collect --estimate` at the command line: the
// history they read (the store's, for this arch and backend), the plan
// printed before a budgeted run, the cases it did not start recorded as
// MISSING with the reason "budget", and the estimate of a selection's wall time.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "reports/result_store.h"
#include "reports/spooled_store.h"
#include "runner/collection/test_case.h"
#include "runner/engine/run_loop.h"

namespace meshtest::runner {

// `run`: --budget did not start every case (each that ran was as expected;
// unexpected results give 1 instead). The cases not started are MISSING with
// the reason "budget".
inline constexpr int kExitBudgetCut = 7;
// The store's not_run_reason of a case --budget did not start.
inline constexpr const char* kNotRunForBudget = "budget";

// Each case's recent durations on `arch` and `backend` (empty without a store).
std::map<std::string, reports::CaseHistory> budget_history(reports::ResultStore* store, const std::string& arch,
                                                           const std::string& backend,
                                                           const std::string& started_before = "");

// Sets the loop's budget (`budget` as parse_duration reads it) and each
// case's expected seconds, and prints what the history expects.
void plan_budget(const std::string& budget, const std::vector<const TestCase*>& cases,
                 const std::map<std::string, reports::CaseHistory>& history, LoopOptions& loop, std::ostream& console);

// After a budgeted run: prints the cases not started and records them in
// the store (when there is one) as not run for the budget.
void record_not_started(const LoopResult& result, reports::SpooledStore* store, const std::string& run_id,
                        const std::string& arch, const std::string& budget, std::ostream& console);

// `collect --estimate`: the expected wall time of `cases` on `jobs` workers
// and how many had no history (assumed), one line.
void print_estimate(std::ostream& out, const std::vector<const TestCase*>& cases,
                    const std::map<std::string, reports::CaseHistory>& history, size_t jobs, const std::string& arch,
                    const std::string& backend);

}  // namespace meshtest::runner
