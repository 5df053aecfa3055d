// Console output of a run: one line per finished case (outcome, PCC, time,
// id; failures add the bring-up status, phase and message) and a pytest-style
// summary line. Also decides which results are "unexpected" (exit status 1).
#pragma once

#include <ostream>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::runner {

void print_case_line(std::ostream& out, const reports::CaseResult& result);
void print_summary(std::ostream& out, const std::vector<reports::CaseResult>& results, double seconds);

// Unexpected: a failure of an EXPECTED_PASSING case, a strict XPASS, or an
// error (loader failure, harness error) — unless the case is marked flaky.
bool is_unexpected(const reports::CaseResult& result);

}  // namespace meshtest::runner
