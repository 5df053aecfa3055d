// Guidance tags: what a result suggests doing to the test_config.
//   RM_XFAIL   an xfail case passed: drop KNOWN_FAILURE_XFAIL
//   ADD_CONFIG an UNSPECIFIED case passed: give it an entry (EXPECTED_PASSING)
//   ENABLE_PCC the PCC check is disabled but the PCC clears the threshold
//   RAISE_PCC  a threshold below the default clears a higher one with margin
#pragma once

#include <string>
#include <vector>

#include "comparators/metrics.h"
#include "reports/case_result.h"

namespace meshtest::reports {

inline constexpr double kPccMargin = 0.002;     // kept below the worst observed PCC
using comparators::kDefaultRequiredPcc;

// The threshold a case that scored `worst_pcc` can safely require: worst - margin,
// rounded down to 3 decimals, and never above the default (tighter than the
// default turns run-to-run noise into failures).
double raised_pcc_threshold(double worst_pcc);
// True when `required` is below the default and raised_pcc_threshold(worst_pcc)
// is meaningfully above it (the seed runner's rule: only loosened thresholds rise).
bool can_raise_pcc(double worst_pcc, double required);

// The tags for a result, from its status, outcome, PCC and thresholds.
std::vector<std::string> guidance_for(const CaseResult& result);

}  // namespace meshtest::reports
