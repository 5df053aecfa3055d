// Result records for report tests: a fully populated one, and quick ones
// with just an id, outcome and PCC.
#pragma once

#include <string>

#include "reports/case_result.h"

namespace meshtest::reports::testing {

// Every field set to a distinctive value (NaN-free), two outputs.
CaseResult full_result(const std::string& test_id);
CaseResult quick_result(const std::string& test_id, Outcome outcome, double pcc, double wall_seconds = 1.0);
RunInfo run_info(const std::string& run_id, const std::string& started_at);

}  // namespace meshtest::reports::testing
