// Reading runs back: the final result of each case, what changed between two
// runs (diff), and which cases flip between outcomes (flaky).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "reports/case_result.h"
#include "reports/result_store.h"

namespace meshtest::reports {

// A run with every attempt of every case; scoped to one arch (arch set),
// its results are that arch's and `missing` lists the cases the run was
// asked to run on the arch that have no result.
struct RunResults {
  RunInfo run;
  std::vector<CaseResult> results;
  std::vector<SelectedCase> selection;  // what every shard of the run was asked to run
  std::string arch;                     // "": every arch
  std::vector<std::string> missing;     // test ids, when scoped to an arch
};

// Of a scoped run's missing cases, those it chose not to start, with why
// ("budget": run --budget), by test id; a lost shard's have none.
std::map<std::string, std::string> not_run_reasons(const RunResults& run);

// The last `count` runs, oldest first; with `arch`, scoped to it (runs that
// neither selected nor recorded a case on it are left out).
std::vector<RunResults> load_recent_runs(ResultStore& store, int count, const std::string& arch = "");
RunResults load_run(ResultStore& store, const RunInfo& run, const std::string& arch = "");
// `runs` scoped to `arch` (for_arch), leaving out the runs that did not run on it.
std::vector<RunResults> scoped_to_arch(const std::vector<RunResults>& runs, const std::string& arch);

// The arches a run selected or recorded cases on, sorted.
std::vector<std::string> arches_of(const RunResults& run);
// `run` scoped to `arch` (see RunResults).
RunResults for_arch(const RunResults& run, const std::string& arch);

// Last attempt of each case, by test id.
std::map<std::string, const CaseResult*> final_results(const std::vector<CaseResult>& results);

// Passed or xpassed: the code under test worked.
bool is_pass(Outcome outcome);
// Failed or error (xfailed is expected, skipped did not run).
bool is_failure(Outcome outcome);

struct DiffOptions {
  double pcc_margin = 0.005;  // a PCC drop larger than this is a regression
  double time_factor = 1.5;   // wall time growing by more than this factor ...
  double time_floor_seconds = 1.0;  // ... and by more than this many seconds (0 factor: off) is slower
  bool fail_on_slower = false;      // slower cases alone regress (timing is noisy on shared machines)
  // Perf, apart from correctness: the modelled device time, or a perf run's
  // median host execution, growing by more than this fraction.
  double perf_margin = 0.05;
  bool fail_on_perf = false;  // perf regressions alone regress
};

// A pass<->fail flip explained by a required_pcc edit between the two results:
// same PCC, the threshold moved across it.
bool is_threshold_change(const CaseResult& was, const CaseResult& now);

struct CaseChange {
  std::string test_id;
  const CaseResult* before = nullptr;  // nullptr: not in the earlier run
  const CaseResult* after = nullptr;
};

struct RunDiff {
  std::vector<CaseChange> new_failures, fixed, pcc_drops, slower;
  std::vector<CaseChange> threshold_changes;  // flips from a required_pcc edit: neither failures nor fixes
  std::vector<std::string> missing;           // asked of the later run, no result
  std::map<std::string, std::string> not_run_reasons;  // of `missing`: why the run did not start them ("budget")
  // Perf regressions past DiffOptions::perf_margin (modelled device time, or
  // the median host execution of two perf runs).
  std::vector<CaseChange> modelled_slower, perf_slower;
  bool fail_on_slower = false;
  bool fail_on_perf = false;
  bool regressed() const {
    return !new_failures.empty() || !pcc_drops.empty() || (fail_on_slower && !slower.empty()) || !missing.empty() ||
           (fail_on_perf && (!modelled_slower.empty() || !perf_slower.empty()));
  }
};

// What changed from `before` to `after` (results must outlive the diff).
RunDiff diff_runs(const std::vector<CaseResult>& before, const std::vector<CaseResult>& after,
                  const DiffOptions& options = {});
// The same for two runs scoped to one arch, with the later run's missing cases.
RunDiff diff_runs(const RunResults& before, const RunResults& after, const DiffOptions& options = {});

struct FlakyCase {
  std::string test_id;
  int runs = 0;           // recent runs that have the case
  int passes = 0, failures = 0;
  int flips = 0;          // pass <-> fail changes between consecutive runs
  int retried_passes = 0; // runs where an attempt failed and a later one passed
  std::string outcomes;   // one letter per run, oldest first: P pass, F fail, X xfail, S skip
};

// Cases whose outcome changes across `runs` (oldest first): at least two flips,
// or a pass only on retry. A flip from a threshold change is not counted. With `strict`, one flip is enough (promote uses it).
std::vector<FlakyCase> find_flaky(const std::vector<RunResults>& runs, bool strict = false);
std::set<std::string> flaky_ids(const std::vector<RunResults>& runs, bool strict);

}  // namespace meshtest::reports
