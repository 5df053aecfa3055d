// Which case starts next: --ff's failed cases first, then longest first (by history, else a size estimate),
// never exceeding the memory budget with what is already running. A case
// bigger than the whole budget runs alone. Retries go to the front.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reports/result_store.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

// Expected wall time and peak host memory of one case.
struct CaseCost {
  double seconds = 1;
  int64_t bytes = 0;
  bool from_history = false;
};

// From the store's history when the case has one; otherwise a cheap guess
// from its name, never by building the graph: a parameter count in the
// variant ("1b", "125m", "resnet50" -> 50 layers), size words (tiny < small
// < base < large), training costing about three times inference.
CaseCost estimate_cost(const TestCase& test_case, const std::map<std::string, reports::CaseHistory>& history);

struct ScheduledJob {
  const TestCase* test_case = nullptr;
  CaseCost cost;
  int attempt = 1;
  bool first = false;  // --ff: starts before the others (failed last time)
};

// Where the run loop takes its next case from: this process's own list
// (Scheduler) or a queue shared by many machines (runner/engine/queue_source.h).
class JobSource {
 public:
  virtual ~JobSource() = default;
  // The next job that fits next to `memory_in_use` (anything fits when
  // nothing runs); nullopt when none fits now or none is left.
  virtual std::optional<ScheduledJob> next(int64_t memory_in_use, size_t running) = 0;
  // A failed attempt to run again (--reruns), before anything else.
  virtual void retry(ScheduledJob job) = 0;
  // Nothing left to start, here or (for a shared queue) anywhere.
  virtual bool empty() = 0;
  // The case has its final result.
  virtual void finished(const ScheduledJob&) {}
  // Called once per turn of the run loop.
  virtual void tick() {}
};

class Scheduler : public JobSource {
 public:
  Scheduler(std::vector<ScheduledJob> jobs, int64_t memory_budget);
  std::optional<ScheduledJob> next(int64_t memory_in_use, size_t running) override;
  void retry(ScheduledJob job) override { queue_.push_front(std::move(job)); }
  bool empty() override { return queue_.empty(); }

 private:
  std::deque<ScheduledJob> queue_;
  int64_t budget_;
};

}  // namespace meshtest::runner
