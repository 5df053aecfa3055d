// Dashboard section "memory by phase": for each case of the latest run (every
// arch) that ran with --log-memory, a small column chart of its peak host RSS
// in each phase, in phase order, with the device's DRAM peak as a dashed line;
// rows filtered by the filter bar like the case explorer, so picking a case
// there (its id) shows its timeline. Cases without per-phase figures are only
// counted, with the flag that records them.
#include <algorithm>
#include <cmath>

#include "reports/dashboard_sections.h"
#include "reports/svg_charts.h"

namespace meshtest::reports::dashboard {

namespace {

// Charts on one page at most (each about 1.5 KiB): the cases with the highest host peak.
constexpr size_t kMaxCharts = 400;
constexpr double kMiB = 1048576.0;
const char* const kHint = "run with --log-memory to see phases";

bool has_phase_figures(const CaseResult& r) {
  const PhaseBytes& p = r.peak_host_rss_by_phase;
  return p.load > 0 || p.golden > 0 || p.compile > 0 || p.execute > 0 || p.compare > 0;
}

// MiB, NaN for 0 (not logged, or the phase was not reached).
double mib_or_gap(int64_t bytes) { return bytes > 0 ? static_cast<double>(bytes) / kMiB : NAN; }

std::string phase_chart(const std::string& id, const CaseResult& r) {
  const PhaseBytes& p = r.peak_host_rss_by_phase;
  const std::vector<ChartPoint> phases = {{"load", mib_or_gap(p.load)},
                                          {"golden", mib_or_gap(p.golden)},
                                          {"compile", mib_or_gap(p.compile)},
                                          {"execute", mib_or_gap(p.execute)},
                                          {"compare", mib_or_gap(p.compare)}};
  return svg_column_chart(id, phases, {"device DRAM peak (per chip)", mib_or_gap(r.peak_device_dram_bytes)},
                          "%.1f MiB");
}

}  // namespace

std::string memory_timeline(const Page& page) {
  std::vector<const CaseResult*> logged;
  size_t without = 0;
  for (const auto& [key, r] : page.every_arch_finals.back()) {
    if (has_phase_figures(*r)) {
      logged.push_back(r);
    } else {
      ++without;
    }
  }
  const std::string title = "Memory by phase, latest run (host RSS peak per phase; device DRAM peak dashed)";
  if (logged.empty()) {
    return section("memory", title,
                   none("No case of the latest run has per-phase memory figures: " + std::string(kHint) + "."));
  }
  std::stable_sort(logged.begin(), logged.end(), [](const CaseResult* a, const CaseResult* b) {
    return a->peak_host_rss_bytes > b->peak_host_rss_bytes;
  });
  std::string note;
  if (logged.size() > kMaxCharts) {
    note = none("The " + std::to_string(kMaxCharts) + " cases with the highest host peak of " +
                std::to_string(logged.size()) + " with per-phase figures.");
    logged.resize(kMaxCharts);
  }
  if (without > 0) note += none(std::to_string(without) + " case(s) without per-phase figures: " + kHint + ".");
  std::string rows;
  for (size_t i = 0; i < logged.size(); ++i) {
    const CaseResult& r = *logged[i];
    rows += "<tr" + case_filter_attributes(r) + ">" + cell(r.test_id, "id") + cell(r.arch) +
            cell(std::string(outcome_name(r.outcome))) +
            number_cell(static_cast<double>(r.peak_host_rss_bytes) / kMiB, "%.1f") +
            number_cell(mib_or_gap(r.peak_device_dram_bytes), "%.1f") + "<td><details><summary>phases</summary>" +
            phase_chart("memory-chart-" + std::to_string(i), r) + "</details></td></tr>";
  }
  return section("memory", title,
                 note + shown_count("memory-table", logged.size()) +
                     "<div class=\"scroll\"><table id=\"memory-table\"><thead><tr><th>test id</th><th>arch</th>"
                     "<th>outcome</th><th class=\"num\">host peak MiB</th><th class=\"num\">device DRAM MiB</th>"
                     "<th>by phase</th></tr></thead><tbody>" +
                     rows + "</tbody></table></div>");
}

}  // namespace meshtest::reports::dashboard
