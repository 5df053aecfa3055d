// The HTML dashboard (`meshtest report`): one self-contained page (inline CSS
// and SVG, no scripts or network) built from the last runs of the store.
#pragma once

#include <string>
#include <vector>

#include "reports/run_analysis.h"

namespace meshtest::reports {

struct DashboardOptions {
  DiffOptions diff;
  int slowest = 20;  // rows in "slowest cases"
  std::string title = "meshtest results";
};

// `runs` oldest first; the newest is the one the overview describes.
std::string render_dashboard(const std::vector<RunResults>& runs, const DashboardOptions& options = {});
// Writes atomically; throws meshtest::Error on I/O failure.
void write_dashboard(const std::string& path, const std::vector<RunResults>& runs,
                     const DashboardOptions& options = {});

}  // namespace meshtest::reports
