// Final results, run diffs and flaky detection.
#include "reports/run_analysis.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace meshtest::reports {

RunResults load_run(ResultStore& store, const RunInfo& run, const std::string& arch) {
  RunResults all{run, store.run_results(run.run_id), store.run_selection(run.run_id), "", {}};
  return arch.empty() ? all : for_arch(all, arch);
}

std::vector<RunResults> load_recent_runs(ResultStore& store, int count, const std::string& arch) {
  std::vector<RunResults> out;
  for (const RunInfo& run : store.recent_runs(count)) out.push_back(load_run(store, run));
  std::reverse(out.begin(), out.end());
  return arch.empty() ? out : scoped_to_arch(out, arch);
}

std::vector<RunResults> scoped_to_arch(const std::vector<RunResults>& runs, const std::string& arch) {
  std::vector<RunResults> out;
  for (const RunResults& run : runs) {
    RunResults scoped = for_arch(run, arch);
    if (scoped.results.empty() && scoped.missing.empty()) continue;  // not run on `arch`
    out.push_back(std::move(scoped));
  }
  return out;
}

std::vector<std::string> arches_of(const RunResults& run) {
  std::set<std::string> arches;
  for (const CaseResult& r : run.results) arches.insert(r.arch);
  for (const SelectedCase& c : run.selection) arches.insert(c.arch);
  return {arches.begin(), arches.end()};
}

RunResults for_arch(const RunResults& run, const std::string& arch) {
  RunResults out{run.run, {}, {}, arch, {}};
  std::set<std::string> recorded;
  for (const CaseResult& r : run.results) {
    if (r.arch != arch) continue;
    out.results.push_back(r);
    recorded.insert(r.test_id);
  }
  for (const SelectedCase& c : run.selection) {
    if (c.arch != arch) continue;
    out.selection.push_back(c);
    if (!recorded.count(c.test_id)) out.missing.push_back(c.test_id);
  }
  return out;
}

std::map<std::string, std::string> not_run_reasons(const RunResults& run) {
  const std::set<std::string> missing(run.missing.begin(), run.missing.end());
  std::map<std::string, std::string> out;
  for (const SelectedCase& c : run.selection) {
    if (!c.not_run_reason.empty() && missing.count(c.test_id)) out[c.test_id] = c.not_run_reason;
  }
  return out;
}

std::map<std::string, const CaseResult*> final_results(const std::vector<CaseResult>& results) {
  std::map<std::string, const CaseResult*> out;
  for (const CaseResult& r : results) {
    const CaseResult*& slot = out[r.test_id];
    if (!slot || r.attempt >= slot->attempt) slot = &r;
  }
  return out;
}

bool is_pass(Outcome o) { return o == Outcome::Passed || o == Outcome::Xpassed; }
bool is_failure(Outcome o) { return o == Outcome::Failed || o == Outcome::Error; }

bool is_threshold_change(const CaseResult& was, const CaseResult& now) {
  constexpr double kSamePcc = 1e-6;
  if (!std::isfinite(was.pcc) || !std::isfinite(now.pcc) || std::abs(was.pcc - now.pcc) > kSamePcc) return false;
  if (!std::isfinite(was.required_pcc) || !std::isfinite(now.required_pcc)) return false;
  if (is_pass(was.outcome) && is_failure(now.outcome)) return now.required_pcc > was.required_pcc;
  if (is_failure(was.outcome) && is_pass(now.outcome)) return now.required_pcc < was.required_pcc;
  return false;
}

RunDiff diff_runs(const std::vector<CaseResult>& before, const std::vector<CaseResult>& after,
                  const DiffOptions& options) {
  const auto old_final = final_results(before);
  RunDiff diff;
  diff.fail_on_slower = options.fail_on_slower;
  diff.fail_on_perf = options.fail_on_perf;
  for (const auto& [id, now] : final_results(after)) {
    auto it = old_final.find(id);
    const CaseResult* was = it == old_final.end() ? nullptr : it->second;
    const CaseChange change{id, was, now};
    if (was && is_threshold_change(*was, *now)) {
      diff.threshold_changes.push_back(change);
      continue;
    }
    if (is_failure(now->outcome) && (!was || !is_failure(was->outcome))) diff.new_failures.push_back(change);
    if (!was) continue;
    if (is_failure(was->outcome) && is_pass(now->outcome)) diff.fixed.push_back(change);
    const bool judged = is_pass(now->outcome) || is_failure(now->outcome);  // not an expected xfail or a skip
    if (judged && std::isfinite(was->pcc) && std::isfinite(now->pcc) && was->pcc - now->pcc > options.pcc_margin) {
      diff.pcc_drops.push_back(change);
    }
    if (options.time_factor > 0 && is_pass(now->outcome) && was->wall_seconds > 0 &&
        now->wall_seconds > was->wall_seconds * options.time_factor &&
        now->wall_seconds - was->wall_seconds > options.time_floor_seconds) {
      diff.slower.push_back(change);
    }
    const auto grew = [&](double before_value, double after_value) {
      return before_value > 0 && after_value > before_value * (1 + options.perf_margin);
    };
    if (grew(was->modelled_device_seconds, now->modelled_device_seconds)) diff.modelled_slower.push_back(change);
    if (was->perf_iterations > 0 && now->perf_iterations > 0 &&
        grew(was->perf_execute_seconds, now->perf_execute_seconds)) {
      diff.perf_slower.push_back(change);
    }
  }
  return diff;
}

RunDiff diff_runs(const RunResults& before, const RunResults& after, const DiffOptions& options) {
  RunDiff diff = diff_runs(before.results, after.results, options);
  diff.missing = after.missing;
  diff.not_run_reasons = not_run_reasons(after);
  return diff;
}

namespace {

char outcome_letter(Outcome o) {
  if (is_pass(o)) return 'P';
  if (is_failure(o)) return 'F';
  return o == Outcome::Xfailed ? 'X' : 'S';
}

// Cases where an attempt did not work and a later attempt of the same run passed.
std::set<std::string> passed_on_retry(const std::vector<CaseResult>& results) {
  std::map<std::string, bool> failed;
  std::set<std::string> out;
  for (const CaseResult& r : results) {  // ordered by test id, then attempt
    bool& f = failed[r.test_id];
    if (is_pass(r.outcome) && f) out.insert(r.test_id);
    f = f || is_failure(r.outcome) || r.outcome == Outcome::Xfailed;
  }
  return out;
}

}  // namespace

std::vector<FlakyCase> find_flaky(const std::vector<RunResults>& runs, bool strict) {
  std::map<std::string, FlakyCase> cases;
  std::map<std::string, char> last;  // last pass/fail letter seen
  std::map<std::string, const CaseResult*> last_result;
  for (const RunResults& run : runs) {
    const std::set<std::string> retried = passed_on_retry(run.results);
    for (const auto& [id, r] : final_results(run.results)) {
      FlakyCase& c = cases[id];
      c.test_id = id;
      ++c.runs;
      const char letter = outcome_letter(r->outcome);
      c.outcomes += letter;
      // xfailed counts as "did not work" for flips: an xfail case that sometimes passes is flaky too
      const char kind = letter == 'P' ? 'P' : (letter == 'S' ? 0 : 'F');
      if (kind == 'P') ++c.passes;
      if (kind == 'F') ++c.failures;
      if (kind && last.count(id) && last[id] != kind && !is_threshold_change(*last_result[id], *r)) ++c.flips;
      if (kind) last[id] = kind, last_result[id] = r;
      if (retried.count(id)) ++c.retried_passes;
    }
  }
  std::vector<FlakyCase> out;
  for (auto& [id, c] : cases) {
    if (c.flips >= (strict ? 1 : 2) || c.retried_passes > 0) out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const FlakyCase& a, const FlakyCase& b) {
    return a.flips != b.flips ? a.flips > b.flips : a.test_id < b.test_id;
  });
  return out;
}

std::set<std::string> flaky_ids(const std::vector<RunResults>& runs, bool strict) {
  std::set<std::string> ids;
  for (const FlakyCase& c : find_flaky(runs, strict)) ids.insert(c.test_id);
  return ids;
}

}  // namespace meshtest::reports
