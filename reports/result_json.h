// The result record as JSON: one shape used by JUnit properties and JSON lines.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/case_result.h"

namespace meshtest::reports {

// Every field of the record; NaN metrics become null.
nlohmann::json result_to_json(const CaseResult& result);
nlohmann::json run_to_json(const RunInfo& run);

}  // namespace meshtest::reports
