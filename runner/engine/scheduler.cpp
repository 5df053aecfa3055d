// Cost estimates and longest-first, memory-bounded job order.
#include "runner/engine/scheduler.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace meshtest::runner {

namespace {

constexpr int64_t kMiB = 1024 * 1024;

// A parameter count written in a name: "1b", "7b", "125m", "1_5b" (1.5b).
double parameters_in_name(const std::string& name) {
  double best = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) ||
        (i > 0 && std::isalnum(static_cast<unsigned char>(name[i - 1])))) {
      continue;
    }
    size_t j = i;
    double value = 0;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) value = value * 10 + (name[j++] - '0');
    if (j + 1 < name.size() && (name[j] == '_' || name[j] == '.') &&
        std::isdigit(static_cast<unsigned char>(name[j + 1]))) {
      value += (name[j + 1] - '0') / 10.0;
      j += 2;
    }
    if (j >= name.size() || (j + 1 < name.size() && std::isalnum(static_cast<unsigned char>(name[j + 1])))) continue;
    const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(name[j])));
    if (unit == 'b') best = std::max(best, value * 1e9);
    if (unit == 'm') best = std::max(best, value * 1e6);
  }
  return best;
}

double size_word_factor(const std::string& name) {
  if (name.find("tiny") != std::string::npos || name.find("mini") != std::string::npos) return 0.25;
  if (name.find("small") != std::string::npos) return 0.5;
  if (name.find("large") != std::string::npos) return 4;
  if (name.find("xl") != std::string::npos) return 8;
  return 1;
}

// Trailing digits of a model name: "resnet50" -> 50 (depth-like); 0 if none.
double trailing_number(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  return i == name.size() ? 0 : std::stod(name.substr(i));
}

}  // namespace

CaseCost estimate_cost(const TestCase& t, const std::map<std::string, reports::CaseHistory>& history) {
  auto it = history.find(t.id);
  if (it != history.end() && it->second.runs > 0) {
    return {it->second.median_wall_seconds, it->second.max_peak_host_rss_bytes, true};
  }
  const std::string& variant = t.info.variant;
  double scale = size_word_factor(variant);
  if (const double params = parameters_in_name(variant); params > 0) {
    scale = params / 100e6;  // a 100M-parameter model is the unit
  } else if (const double depth = trailing_number(variant); depth > 0) {
    scale *= depth / 20;
  }
  if (t.run_mode == RunMode::Training) scale *= 3;
  CaseCost cost;
  cost.seconds = std::max(0.05, scale);
  cost.bytes = static_cast<int64_t>(std::max(32.0, 128.0 * scale) * kMiB);
  return cost;
}

Scheduler::Scheduler(std::vector<ScheduledJob> jobs, int64_t memory_budget) : budget_(memory_budget) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const ScheduledJob& a, const ScheduledJob& b) {
    if (a.first != b.first) return a.first;
    if (a.cost.seconds != b.cost.seconds) return a.cost.seconds > b.cost.seconds;
    return a.test_case->id < b.test_case->id;
  });
  queue_.assign(jobs.begin(), jobs.end());
}

std::optional<ScheduledJob> Scheduler::next(int64_t memory_in_use, size_t running) {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (running == 0 || budget_ <= 0 || memory_in_use + it->cost.bytes <= budget_) {
      ScheduledJob job = *it;
      queue_.erase(it);
      return job;
    }
  }
  return std::nullopt;
}

}  // namespace meshtest::runner
