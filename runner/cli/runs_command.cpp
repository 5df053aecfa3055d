// `meshtest runs`: counts of each run's final results per arch, and its missing cases.
#include "runner/cli/runs_command.h"

#include <cstdio>

#include "reports/run_analysis.h"

namespace meshtest::runner {

namespace {

using namespace meshtest::reports;

struct OutcomeCounts {
  size_t passed = 0, failed = 0, error = 0, xfailed = 0, skipped = 0;
};

OutcomeCounts count_outcomes(const std::vector<CaseResult>& results) {
  OutcomeCounts n;
  for (const auto& [id, r] : final_results(results)) {
    switch (r->outcome) {
      case Outcome::Passed: case Outcome::Xpassed: ++n.passed; break;
      case Outcome::Failed: ++n.failed; break;
      case Outcome::Error: ++n.error; break;
      case Outcome::Xfailed: ++n.xfailed; break;
      case Outcome::Skipped: ++n.skipped; break;
    }
  }
  return n;
}

}  // namespace

int cmd_runs(ResultStore& store, int count, const std::string& arch, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %-6s %-10s %8s %6s %6s %5s %5s %4s %7s  %s\n", "RUN", "ARCH", "STATE",
                "SELECTED", "PASSED", "FAILED", "ERROR", "XFAIL", "SKIP", "MISSING", "SELECTION");
  out << line;
  for (const RunInfo& info : store.recent_runs(count)) {
    const RunResults run = load_run(store, info);
    for (const std::string& a : arches_of(run)) {
      if (!arch.empty() && a != arch) continue;
      const RunResults scoped = for_arch(run, a);
      const OutcomeCounts n = count_outcomes(scoped.results);
      // A run stopped by SIGINT/SIGTERM is interrupted until a --resume finishes it.
      const char* state = !info.finished_at.empty()   ? "finished"
                          : !info.interrupted_at.empty() ? "interrupted"
                                                        : "unfinished";
      std::snprintf(line, sizeof line, "%-24s %-6s %-10s %8zu %6zu %6zu %5zu %5zu %4zu %7zu  %s\n",
                    info.run_id.c_str(), a.c_str(), state, scoped.selection.size(), n.passed, n.failed, n.error,
                    n.xfailed, n.skipped, scoped.missing.size(), info.selection.c_str());
      out << line;
    }
  }
  return 0;
}

}  // namespace meshtest::runner
