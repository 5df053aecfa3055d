// Duration estimates, the expected wall time on N workers, durations as
// text, and the budget's job source.
#include "runner/engine/budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>

#include "core/error.h"

namespace meshtest::runner {

DurationEstimates estimate_durations(const std::vector<const TestCase*>& cases,
                                     const std::map<std::string, reports::CaseHistory>& history) {
  DurationEstimates out;
  std::vector<double> known;
  std::vector<const TestCase*> unknown;
  for (const TestCase* t : cases) {
    const auto it = history.find(t->id);
    if (it != history.end() && it->second.runs > 0) {
      out.seconds[t->id] = it->second.median_wall_seconds;
      known.push_back(it->second.median_wall_seconds);
    } else {
      unknown.push_back(t);
    }
  }
  std::sort(known.begin(), known.end());
  for (const TestCase* t : unknown) {
    out.seconds[t->id] = known.empty() ? estimate_cost(*t, {}).seconds : known[known.size() / 2];
  }
  out.assumed = unknown.size();
  return out;
}

double expected_wall_seconds(const DurationEstimates& estimates, size_t jobs) {
  std::vector<double> durations;
  for (const auto& [id, seconds] : estimates.seconds) durations.push_back(seconds);
  std::sort(durations.rbegin(), durations.rend());
  // Each worker's finishing time; the one free first takes the next case.
  std::priority_queue<double, std::vector<double>, std::greater<double>> workers;
  for (size_t i = 0; i < std::max<size_t>(1, jobs); ++i) workers.push(0);
  double last = 0;
  for (double d : durations) {
    const double end = workers.top() + d;
    workers.pop();
    workers.push(end);
    last = std::max(last, end);
  }
  return last;
}

double parse_duration(const std::string& text) {
  const auto bad = [&] {
    return ParseError("duration '" + text + "': expected e.g. 4h, 30m, 90s, 1h30m or seconds, above 0");
  };
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      throw bad();
    }
    if (used == 0 || !std::isfinite(value) || value < 0 || text[i] == '+' || text[i] == '-') throw bad();
    i += used;
    double unit = 1;
    if (i < text.size()) {
      const char u = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i++])));
      if (u == 'h') unit = 3600;
      else if (u == 'm') unit = 60;
      else if (u != 's') throw bad();
    } else if (any) {
      throw bad();  // "1h30": a unit is needed after the first part
    }
    total += value * unit;
    any = true;
  }
  if (!any || total <= 0) throw bad();
  return total;
}

std::string duration_text(double seconds) {
  char text[32];
  const long whole = std::lround(seconds);
  if (seconds >= 3600) std::snprintf(text, sizeof text, "%ldh%02ldm", whole / 3600, whole % 3600 / 60);
  else if (seconds >= 60) std::snprintf(text, sizeof text, "%ldm%02lds", whole / 60, whole % 60);
  else std::snprintf(text, sizeof text, "%.1fs", seconds);
  return text;
}

BudgetedSource::BudgetedSource(JobSource& inner, std::map<std::string, double> expected_seconds,
                               double budget_seconds, std::function<double()> elapsed)
    : inner_(inner), expected_(std::move(expected_seconds)), budget_(budget_seconds), elapsed_(std::move(elapsed)) {}

std::optional<ScheduledJob> BudgetedSource::next(int64_t memory_in_use, size_t running) {
  while (std::optional<ScheduledJob> job = inner_.next(memory_in_use, running)) {
    const std::string& id = job->test_case->id;
    const auto expected = expected_.find(id);
    const double seconds = expected == expected_.end() ? job->cost.seconds : expected->second;
    if (retried_.count(id) || elapsed_() + seconds <= budget_) return job;
    not_started_.push_back(id);
  }
  return std::nullopt;
}

void BudgetedSource::retry(ScheduledJob job) {
  retried_.insert(job.test_case->id);
  inner_.retry(std::move(job));
}

}  // namespace meshtest::runner
