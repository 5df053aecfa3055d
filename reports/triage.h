// Triage of a run's failures (`meshtest triage`, the dashboard's triage
// section): the run's failed and errored cases grouped by failure class and
// summary, each case and group labelled new, persisting (since which run and
// commit) or flaky against comparison runs, and the cases fixed since, apart.
// Per arch and backend: a case on n150 is compared only with n150 results of
// the same backend. Expected failures (xfailed) are not triaged, only counted.
// Rendering as text, Markdown and JSON: reports/triage_text.h.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reports/case_result.h"
#include "reports/failure_classes.h"
#include "reports/result_store.h"
#include "reports/run_analysis.h"

namespace meshtest::reports {

// Gives a failed or errored result its class: how triage groups failures.
using TriageClassifier = std::function<Classification(const CaseResult&)>;
// The class stored with the result; a result stored without one (before
// schema 15, or synthetic) or stored UNCLASSIFIED is classified now by
// `classes` (nullptr: UNCLASSIFIED with its first error line).
TriageClassifier failure_classifier(std::shared_ptr<const FailureClasses> classes);

// Group order too: new first, fixed last.
enum class TriageLabel { New, Persisting, Flaky, Fixed };
std::string_view triage_label_name(TriageLabel label);  // "new", "persisting", "flaky", "fixed"

// A run of the comparison window a case failed in, as persisting cites it.
struct SinceRun {
  std::string run_id, git_sha, started_at;
  bool empty() const { return run_id.empty(); }
};

struct TriageCase {
  std::string test_id, arch, backend;  // backend "" (results before schema 14) reads as "simulated"
  Outcome outcome = Outcome::Error;    // in the triaged run (fixed: its passing outcome)
  TriageLabel label = TriageLabel::New;
  // The first run of the window in which the case failed this way (same class
  // and summary); empty for new cases and fixed ones.
  SinceRun since;
  // Flaky cases: one letter per run, oldest first, the triaged run last
  // (P pass, F fail, X xfail, S skip; reports/run_analysis.h FlakyCase).
  std::string history;
  std::string message;  // first line of the error (fixed: of the earlier failure)
};

struct TriageGroup {
  Classification failure;
  // flaky: every case is flaky; persisting: a case failed this way in the
  // window (since: the earliest such run of its cases'); new otherwise;
  // fixed: the cases that failed this way and pass now.
  TriageLabel label = TriageLabel::New;
  SinceRun since;
  std::vector<TriageCase> cases;
  size_t count(TriageLabel label) const;
};

// The runs one (arch, backend) was compared with, oldest first.
struct TriageScope {
  std::string arch, backend;
  std::vector<RunInfo> compared;
};

struct Triage {
  RunInfo run;
  std::vector<TriageScope> scopes;
  std::vector<TriageGroup> groups;  // the run's failures: new, then persisting, then flaky; larger groups first
  std::vector<TriageGroup> fixed;   // by the class they failed with, larger first
  size_t xfailed = 0;               // expected failures in the run, not triaged
  size_t failing_cases() const;
};

struct TriageOptions {
  std::string arch, backend;  // only this arch / backend ("": every one)
  // true: each (arch, backend) is compared with the newest earlier run that
  // has results of it; false: with every earlier run given.
  bool previous_only = true;
};

// `run`'s failures against `earlier` (oldest first); the triage keeps no reference to either.
Triage triage_run(const RunResults& run, std::span<const RunResults> earlier, const TriageOptions& options,
                  const TriageClassifier& classify);

// Which runs a triage reads from the store.
struct TriageWindow {
  std::string run;      // the run triaged; "": the latest
  std::string against;  // compare with this run only
  int days = 0;         // > 0: with every run started within this many days before the triaged one
};
struct TriageRuns {
  RunResults run;
  std::vector<RunResults> earlier;  // oldest first
  bool previous_only = true;        // neither --against nor --days: the previous run of each arch and backend
};
// Throws meshtest::Error for an unknown run, an empty store, or --against naming the triaged run.
TriageRuns load_triage_runs(ResultStore& store, const TriageWindow& window);

}  // namespace meshtest::reports
