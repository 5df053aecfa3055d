// Triage: a run's failures grouped by class and summary and labelled against
// the comparison runs of their arch and backend; the runs read from a store.
#include "reports/triage.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/error.h"

namespace meshtest::reports {

namespace {

// Before schema 14 every result ran on the simulated chip.
std::string backend_of(const CaseResult& r) { return r.backend.empty() ? "simulated" : r.backend; }

bool same_failure(const Classification& a, const Classification& b) { return a.name == b.name && a.summary == b.summary; }

// One (arch, backend) of one run: its results there and the final one of each case.
struct ScopedRun {
  RunResults results;  // for find_flaky
  std::map<std::string, const CaseResult*> finals;
};

ScopedRun scoped(const RunResults& run, const std::string& arch, const std::string& backend) {
  ScopedRun out{for_arch(run, arch), {}};
  std::erase_if(out.results.results, [&](const CaseResult& r) { return backend_of(r) != backend; });
  out.finals = final_results(out.results.results);
  return out;
}

SinceRun since_of(const RunInfo& run) { return {run.run_id, run.git_sha, run.started_at}; }

// One (arch, backend) of the triaged run and its comparison window: labels its failing and fixed cases.
class ScopeTriage {
 public:
  ScopeTriage(const RunResults& run, std::span<const RunResults> earlier, TriageScope& scope,
              const TriageOptions& options)
      : now_(scoped(run, scope.arch, scope.backend)) {
    for (auto e = earlier.rbegin(); e != earlier.rend(); ++e) {  // newest first
      ScopedRun s = scoped(*e, scope.arch, scope.backend);
      if (s.finals.empty()) continue;
      window_.insert(window_.begin(), std::move(s));
      if (options.previous_only) break;
    }
    for (const ScopedRun& s : window_) scope.compared.push_back(s.results.run);
    std::vector<RunResults> history;
    for (const ScopedRun& s : window_) history.push_back(s.results);
    history.push_back(now_.results);
    for (FlakyCase& c : find_flaky(history)) flaky_[c.test_id] = std::move(c);
  }

  const std::map<std::string, const CaseResult*>& finals() const { return now_.finals; }

  // A failing case: flaky, else persisting since the first run it failed this way in, else new.
  TriageCase failing(const CaseResult& r, const Classification& failure, const TriageClassifier& classify) const {
    TriageCase c = base(r);
    c.message = first_line(r.error_message);
    for (const ScopedRun& s : window_) {
      auto it = s.finals.find(r.test_id);
      if (it == s.finals.end() || !is_failure(it->second->outcome)) continue;
      if (!same_failure(classify(*it->second), failure)) continue;
      c.since = since_of(s.results.run);
      break;
    }
    c.label = c.since.empty() ? TriageLabel::New : TriageLabel::Persisting;
    if (auto f = flaky_.find(r.test_id); f != flaky_.end()) {
      c.label = TriageLabel::Flaky;
      c.history = f->second.outcomes;
    }
    return c;
  }

  // A passing case whose latest result in the window failed (a threshold edit is no fix): the earlier failure.
  const CaseResult* fixed_from(const CaseResult& now) const {
    for (auto s = window_.rbegin(); s != window_.rend(); ++s) {
      auto it = s->finals.find(now.test_id);
      if (it == s->finals.end()) continue;
      const CaseResult& was = *it->second;
      return is_failure(was.outcome) && !is_threshold_change(was, now) ? &was : nullptr;
    }
    return nullptr;
  }

  TriageCase base(const CaseResult& r) const {
    TriageCase c;
    c.test_id = r.test_id;
    c.arch = r.arch;
    c.backend = backend_of(r);
    c.outcome = r.outcome;
    return c;
  }

 private:
  ScopedRun now_;
  std::vector<ScopedRun> window_;  // oldest first
  std::map<std::string, FlakyCase> flaky_;
};

using GroupKey = std::pair<std::string, std::string>;  // class name, summary

void add_to(std::map<GroupKey, TriageGroup>& groups, const Classification& failure, TriageCase c) {
  TriageGroup& g = groups[{failure.name, failure.summary}];
  if (g.cases.empty()) g.failure = failure;
  g.cases.push_back(std::move(c));
}

bool case_order(const TriageCase& a, const TriageCase& b) {
  return std::tie(a.label, a.test_id, a.arch, a.backend) < std::tie(b.label, b.test_id, b.arch, b.backend);
}

// Labels a group from its cases and sorts them; groups new first, then larger first.
std::vector<TriageGroup> finished(std::map<GroupKey, TriageGroup> by_key, bool fixed) {
  std::vector<TriageGroup> out;
  for (auto& [key, g] : by_key) {
    std::sort(g.cases.begin(), g.cases.end(), case_order);
    for (const TriageCase& c : g.cases) {
      if (!c.since.empty() && (g.since.empty() || c.since.started_at < g.since.started_at)) g.since = c.since;
    }
    g.label = fixed                                                ? TriageLabel::Fixed
              : g.count(TriageLabel::Flaky) == g.cases.size() ? TriageLabel::Flaky
              : g.since.empty()                                ? TriageLabel::New
                                                               : TriageLabel::Persisting;
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(), [](const TriageGroup& a, const TriageGroup& b) {
    return std::tuple(a.label, b.cases.size()) < std::tuple(b.label, a.cases.size());
  });
  return out;
}

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-10T01:00:00.000Z"); nullopt when unreadable.
std::optional<std::time_t> parse_utc(const std::string& iso) {
  std::tm tm{};
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return timegm(&tm);
}

std::string format_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

// How far back the default window looks for an arch and backend's previous run.
constexpr size_t kPreviousRunsRead = 30;

// Every run of the store, newest first (run infos only: results are read for the chosen ones).
std::vector<RunInfo> every_run(ResultStore& store) { return store.recent_runs(1'000'000); }

// The (arch, backend) pairs of a run's results.
std::set<std::pair<std::string, std::string>> scopes_of(const RunResults& run) {
  std::set<std::pair<std::string, std::string>> out;
  for (const CaseResult& r : run.results) out.insert({r.arch, backend_of(r)});
  return out;
}

}  // namespace

TriageClassifier failure_classifier(std::shared_ptr<const FailureClasses> classes) {
  return [classes](const CaseResult& r) -> Classification {
    const bool stored = !r.failure_class.empty();
    if (stored && (r.failure_class != kUnclassified || !classes)) {
      return {r.failure_class, r.failure_component, r.failure_summary};
    }
    if (classes) return classify(*classes, r);  // stored without a class, or with none that matched then
    return {kUnclassified, "", first_line(r.error_message)};
  };
}

std::string_view triage_label_name(TriageLabel label) {
  switch (label) {
    case TriageLabel::New: return "new";
    case TriageLabel::Persisting: return "persisting";
    case TriageLabel::Flaky: return "flaky";
    case TriageLabel::Fixed: return "fixed";
  }
  return "new";
}

size_t TriageGroup::count(TriageLabel label) const {
  return static_cast<size_t>(std::count_if(cases.begin(), cases.end(), [&](const TriageCase& c) { return c.label == label; }));
}

size_t Triage::failing_cases() const {
  size_t n = 0;
  for (const TriageGroup& g : groups) n += g.cases.size();
  return n;
}

Triage triage_run(const RunResults& run, std::span<const RunResults> earlier, const TriageOptions& options,
                  const TriageClassifier& classify) {
  Triage out;
  out.run = run.run;
  std::map<GroupKey, TriageGroup> failing, fixed;
  for (const auto& [arch, backend] : scopes_of(run)) {
    if ((!options.arch.empty() && arch != options.arch) || (!options.backend.empty() && backend != options.backend)) {
      continue;
    }
    TriageScope& scope = out.scopes.emplace_back(TriageScope{arch, backend, {}});
    const ScopeTriage t(run, earlier, scope, options);
    for (const auto& [id, r] : t.finals()) {
      if (r->outcome == Outcome::Xfailed) ++out.xfailed;
      if (is_failure(r->outcome)) {
        const Classification failure = classify(*r);
        add_to(failing, failure, t.failing(*r, failure, classify));
      } else if (is_pass(r->outcome)) {
        const CaseResult* was = t.fixed_from(*r);
        if (!was) continue;
        TriageCase c = t.base(*r);
        c.label = TriageLabel::Fixed;
        c.message = first_line(was->error_message);
        add_to(fixed, classify(*was), std::move(c));
      }
    }
  }
  out.groups = finished(std::move(failing), false);
  out.fixed = finished(std::move(fixed), true);
  return out;
}

TriageRuns load_triage_runs(ResultStore& store, const TriageWindow& window) {
  const std::vector<RunInfo> runs = every_run(store);  // newest first
  if (runs.empty()) throw Error("the results store has no runs (run `meshtest run` first)");
  auto it = runs.begin();
  if (!window.run.empty()) {
    it = std::find_if(runs.begin(), runs.end(), [&](const RunInfo& r) { return r.run_id == window.run; });
    if (it == runs.end()) throw Error("no run '" + window.run + "' in the results store");
  }
  TriageRuns out{load_run(store, *it), {}, window.against.empty() && window.days <= 0};
  if (!window.against.empty()) {
    if (window.against == it->run_id) throw Error("--against names the run being triaged ('" + it->run_id + "')");
    const auto against = store.find_run(window.against);
    if (!against) throw Error("no run '" + window.against + "' in the results store");
    out.earlier.push_back(load_run(store, *against));
    return out;
  }
  const std::vector<RunInfo> before(it + 1, runs.end());  // newest first
  if (window.days > 0) {
    const std::optional<std::time_t> start = parse_utc(it->started_at);
    if (!start) throw Error("run '" + it->run_id + "' has no readable start time ('" + it->started_at + "')");
    const std::string from = format_utc(*start - static_cast<std::time_t>(window.days) * 86400);
    for (const RunInfo& r : before) {
      if (r.started_at >= from) out.earlier.insert(out.earlier.begin(), load_run(store, r));
    }
    return out;
  }
  // The previous run of each (arch, backend) the triaged run has: read back
  // until each has one, or kPreviousRunsRead runs (a new backend has none).
  auto wanted = scopes_of(out.run);
  for (size_t i = 0; i < before.size() && i < kPreviousRunsRead; ++i) {
    const RunInfo& r = before[i];
    if (wanted.empty()) break;
    RunResults earlier = load_run(store, r);
    const auto has = scopes_of(earlier);
    const size_t before_count = wanted.size();
    std::erase_if(wanted, [&](const auto& s) { return has.count(s) > 0; });
    if (wanted.size() < before_count) out.earlier.insert(out.earlier.begin(), std::move(earlier));
  }
  return out;
}

}  // namespace meshtest::reports
