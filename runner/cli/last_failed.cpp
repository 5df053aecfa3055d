// The last failed cases from the store (see last_failed.h).
#include "runner/cli/last_failed.h"

#include <map>

namespace meshtest::runner {

std::set<std::string> last_failed_ids(reports::ResultStore& store, const std::string& arch, int runs) {
  std::set<std::string> decided, failed;
  for (const reports::RunInfo& run : store.recent_runs(runs)) {  // newest first: the newest result decides
    std::map<std::string, reports::Outcome> final_outcome;  // run_results is ordered by attempt: the last wins
    for (const reports::CaseResult& r : store.run_results(run.run_id)) {
      if (r.arch == arch) final_outcome[r.test_id] = r.outcome;
    }
    for (const auto& [id, outcome] : final_outcome) {
      if (!decided.insert(id).second) continue;
      if (outcome == reports::Outcome::Failed || outcome == reports::Outcome::Error ||
          outcome == reports::Outcome::Xpassed) {
        failed.insert(id);
      }
    }
  }
  return failed;
}

}  // namespace meshtest::runner
