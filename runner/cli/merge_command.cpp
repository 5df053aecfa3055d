// Merging shard stores into one run: results keyed by test id, arch and
// attempt (an n150 and a p150 store merge without loss), the run's arches
// and every shard's selection carried over.
#include "runner/cli/merge_command.h"

#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "core/error.h"
#include "reports/result_rows.h"
#include "reports/result_store.h"

namespace meshtest::runner {

int cmd_merge(const std::string& output, const std::vector<std::string>& inputs, const std::string& run_id) {
  reports::RunInfo merged;
  bool all_finished = true;
  std::map<std::tuple<std::string, std::string, int>, reports::CaseResult> results;  // (test id, arch, attempt)
  std::set<std::string> arches;
  std::vector<reports::SelectedCase> selection;
  size_t duplicates = 0;
  try {
    for (const std::string& input : inputs) {
      std::unique_ptr<reports::ResultStore> store = reports::open_store(input);
      const std::vector<reports::RunInfo> runs = store->recent_runs(1);
      if (runs.empty()) throw Error("'" + input + "' holds no run");
      const reports::RunInfo& run = runs.front();
      if (merged.run_id.empty()) {
        merged = run;
      } else {
        merged.started_at = std::min(merged.started_at, run.started_at);
        merged.finished_at = std::max(merged.finished_at, run.finished_at);
      }
      all_finished = all_finished && !run.finished_at.empty();
      for (const std::string& a : reports::split_list(run.arch)) arches.insert(a);
      for (reports::SelectedCase& c : store->run_selection(run.run_id)) selection.push_back(std::move(c));
      for (reports::CaseResult& r : store->run_results(run.run_id)) {
        duplicates += !results.emplace(std::make_tuple(r.test_id, r.arch, r.attempt), std::move(r)).second;
      }
    }
    if (!run_id.empty()) merged.run_id = run_id;
    std::vector<reports::CaseResult> batch;
    for (auto& [key, r] : results) batch.push_back(std::move(r));
    std::unique_ptr<reports::ResultStore> out = reports::open_store(output);
    const std::string finished = all_finished ? merged.finished_at : "";
    merged.finished_at.clear();
    merged.arch = reports::join_list({arches.begin(), arches.end()});
    out->begin_run(merged);
    for (const reports::SelectedCase& c : selection) {
      out->record_selection(merged.run_id, c.arch, c.shard, {c.test_id});
      if (!c.not_run_reason.empty()) out->mark_not_run(merged.run_id, c.arch, {c.test_id}, c.not_run_reason);
    }
    out->record_batch(merged.run_id, batch);
    if (!finished.empty()) out->finish_run(merged.run_id, finished);
    std::cout << "merged " << batch.size() << " result(s) from " << inputs.size() << " store(s) into run "
              << merged.run_id << " in " << output << (all_finished ? "" : " (some shards did not finish)") << "\n";
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (duplicates > 0) {
    std::cerr << "warning: " << duplicates << " result(s) appeared in more than one input; the first was kept\n";
  }
  return 0;
}

}  // namespace meshtest::runner
