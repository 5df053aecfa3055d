// The result record as JSON: one shape used by JUnit properties, JSON lines
// and the isolated worker's status pipe, written and read from the field
// descriptions in reports/record_fields.h.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/case_result.h"

namespace meshtest::reports {

// Every field of the record but captured_output; NaN metrics become null.
nlohmann::json result_to_json(const CaseResult& result);
// The inverse: absent or null fields keep CaseResult's defaults (a null metric is NaN).
CaseResult result_from_json(const nlohmann::json& json);
nlohmann::json run_to_json(const RunInfo& run);

}  // namespace meshtest::reports
