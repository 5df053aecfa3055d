// The HTML dashboard (`meshtest report`): one self-contained page (inline
// CSS, SVG and one inline filter script allowed by a nonce; nothing from the
// network) built from the last runs of the store.
#pragma once

#include <string>
#include <vector>

#include "reports/run_analysis.h"
#include "reports/triage.h"

namespace meshtest::reports {

struct DashboardOptions {
  DiffOptions diff;
  int slowest = 20;  // rows in "slowest cases"
  std::string title = "meshtest results";
  // Classes failures stored without one for the triage section (empty: UNCLASSIFIED, reports/triage.h).
  TriageClassifier classify;
};

// `runs` oldest first, scoped to one arch; the newest is the one the overview
// describes. `every_arch`: the same runs on every arch, for the filterable
// case and variant tables and per-arch history (empty: `runs`).
std::string render_dashboard(const std::vector<RunResults>& runs, const DashboardOptions& options = {},
                             const std::vector<RunResults>& every_arch = {});
// Writes atomically; throws meshtest::Error on I/O failure.
void write_dashboard(const std::string& path, const std::vector<RunResults>& runs,
                     const DashboardOptions& options = {}, const std::vector<RunResults>& every_arch = {});

}  // namespace meshtest::reports
