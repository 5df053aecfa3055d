// Unlisted cases, stale entries, placeholders (see coverage_gaps.h).
#include "runner/cli/coverage_gaps.h"

#include <algorithm>

#include "config/cross_checks.h"

namespace meshtest::runner {

CoverageGaps find_coverage_gaps(const Collected& collected, const std::string& arch) {
  CoverageGaps gaps;
  gaps.arch = arch;
  std::vector<std::string> discovered;
  for (const TestCase& c : collected.cases) {
    if (c.placeholder) {
      gaps.placeholders[std::string(config::bringup_name(
                            c.expectation.bringup_status.value_or(config::BringupStatus::NotStarted)))]
          .push_back(c.id);
      continue;
    }
    if (!c.loader_error.empty()) continue;  // a loader that failed has no cases to list yet
    discovered.push_back(c.id);
    if (c.expectation.status == config::TestStatus::Unspecified) {
      gaps.unlisted.push_back({c.id, collected.config.find(c.id) != nullptr});
    }
  }
  std::sort(gaps.unlisted.begin(), gaps.unlisted.end(),
            [](const UnlistedCase& a, const UnlistedCase& b) { return a.id < b.id; });
  config::check_stale_ids(collected.config, discovered, config::Severity::Warning, gaps.stale);
  for (auto& [status, ids] : gaps.placeholders) std::sort(ids.begin(), ids.end());
  return gaps;
}

void print_coverage_gaps(std::ostream& out, const CoverageGaps& gaps, const GapSections& sections) {
  if (sections.unlisted) {
    out << "UNLISTED on " << gaps.arch << ": discovered, no expected status (" << gaps.unlisted.size() << ")\n";
    for (const UnlistedCase& c : gaps.unlisted) {
      out << "  " << c.id << (c.has_entry ? "  (its entry sets no status for " + gaps.arch + ")" : "") << "\n";
    }
  }
  if (sections.stale) {
    out << "STALE: test_config entries no discovered case has (" << gaps.stale.size() << ")\n";
    for (const config::Diagnostic& d : gaps.stale) out << "  " << d.where.to_string() << ": " << d.message << "\n";
  }
  if (sections.placeholders) {
    size_t total = 0;
    for (const auto& [status, ids] : gaps.placeholders) total += ids.size();
    out << "PLACEHOLDERS by bring-up status (" << total << ")\n";
    for (const auto& [status, ids] : gaps.placeholders) {
      out << "  " << status << " (" << ids.size() << ")\n";
      for (const std::string& id : ids) out << "    " << id << "\n";
    }
  }
}

}  // namespace meshtest::runner
