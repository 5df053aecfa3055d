// Console output of a run: one line per finished case (outcome, PCC, time,
// id; failures add the bring-up status, phase and message) and a pytest-style
// summary line (reruns counted, --durations' slowest cases), coloured on a
// terminal. Also decides which results are "unexpected" (exit status 1).
#pragma once

#include <ostream>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::runner {

// How the console looks: colours (ANSI, only on a terminal unless asked) and
// how much it says (-q: -1, default 0, -v: 1, -vv: 2).
struct ConsoleStyle {
  bool color = false;
  int verbosity = 0;
};

// `final`: the case's last attempt; a failed attempt that will be retried
// (--reruns) is labelled RERUN.
void print_case_line(std::ostream& out, const reports::CaseResult& result, const ConsoleStyle& style = {},
                     bool final = true);
// Whether the console shows this attempt's line at all (-q: only what did not pass).
bool shows_case_line(const reports::CaseResult& result, const ConsoleStyle& style, bool final);

struct SummaryCounts {
  size_t reruns = 0;  // attempts that failed and were run again
  int durations = -1;  // --durations N: the N slowest cases (0: all; -1: none)
};
void print_summary(std::ostream& out, const std::vector<reports::CaseResult>& results, double seconds,
                   const ConsoleStyle& style = {}, const SummaryCounts& counts = {});

// A failed result whose case is marked flaky (YAML `flaky: true`): recorded, not failing the run.
bool is_tolerated(const reports::CaseResult& result);

// Unexpected: a failure of an EXPECTED_PASSING case, a strict XPASS, or an
// error (loader failure, harness error) — unless the case is marked flaky.
bool is_unexpected(const reports::CaseResult& result);

}  // namespace meshtest::runner
