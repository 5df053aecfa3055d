// Guidance tags from a single result.
#include "reports/guidance.h"

#include <algorithm>
#include <cmath>

namespace meshtest::reports {

double raised_pcc_threshold(double worst_pcc) {
  return std::min(std::floor((worst_pcc - kPccMargin) * 1000.0 + 1e-9) / 1000.0, kDefaultRequiredPcc);
}

bool can_raise_pcc(double worst_pcc, double required) {
  if (!std::isfinite(worst_pcc)) return false;
  if (!std::isfinite(required)) required = kDefaultRequiredPcc;
  return required < kDefaultRequiredPcc && raised_pcc_threshold(worst_pcc) >= required + 0.001 - 1e-9;
}

std::vector<std::string> guidance_for(const CaseResult& r) {
  std::vector<std::string> tags;
  const bool passed = r.outcome == Outcome::Passed || r.outcome == Outcome::Xpassed;
  if (!passed) return tags;
  if (r.status == "KNOWN_FAILURE_XFAIL") tags.push_back("RM_XFAIL");
  if (r.status == "UNSPECIFIED") tags.push_back("ADD_CONFIG");
  const double required = std::isfinite(r.required_pcc) ? r.required_pcc : kDefaultRequiredPcc;
  if (!r.assert_pcc && std::isfinite(r.pcc) && r.pcc >= required) tags.push_back("ENABLE_PCC");
  if (r.assert_pcc && can_raise_pcc(r.pcc, required)) tags.push_back("RAISE_PCC");
  return tags;
}

}  // namespace meshtest::reports
