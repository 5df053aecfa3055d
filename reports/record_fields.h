// The fields of the records meshtest stores and sends: a case's result, one
// compared output of it, a run. reports/record_schema.h says what a field
// description holds; every codec, column list and migration reads these.
#pragma once

#include <vector>

#include "reports/case_result.h"
#include "reports/record_schema.h"

namespace meshtest::reports {

// A CaseResult's fields, the `results` table's columns after run_id. Its
// `outputs` are not among them: each is an OutputResult (output_fields()),
// a JSON array "outputs" and rows of `result_outputs`.
const std::vector<Field<CaseResult>>& result_fields();
// An OutputResult's fields, the `result_outputs` columns after run_id,
// test_id, attempt (and before position, the output's index in the record).
const std::vector<Field<OutputResult>>& output_fields();
// A RunInfo's fields, the `runs` table's columns.
const std::vector<Field<RunInfo>>& run_fields();

}  // namespace meshtest::reports
