// Result records for report tests: a fully populated one, and quick ones
// with just an id, outcome and PCC.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports::testing {

// Every field set to a value other than its default (NaN-free), four outputs;
// tests/reports/record_schema_test.cpp checks that it stays so.
CaseResult full_result(const std::string& test_id);
// EXPECTs every described field of `got` (reports/record_fields.h) and of its
// outputs to equal `want`'s; `through_json` skips the fields JSON leaves out.
void expect_every_field_equal(const CaseResult& got, const CaseResult& want, bool through_json);
CaseResult quick_result(const std::string& test_id, Outcome outcome, double pcc, double wall_seconds = 1.0);
RunInfo run_info(const std::string& run_id, const std::string& started_at);

}  // namespace meshtest::reports::testing
