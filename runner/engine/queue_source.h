// `run --queue`: the run loop's jobs come from a work queue in PostgreSQL
// shared by every process given the same run id. Each process queues the
// selection (once per run: later processes find it there, longest first by
// the store's history), claims one case per free worker slot, renews its
// leases while cases run, and is done when no case of the run lacks a final
// result anywhere (a dead process's cases come back when their lease expires).
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "reports/work_queue.h"
#include "runner/engine/scheduler.h"

namespace meshtest::runner {

class QueueSource : public JobSource {
 public:
  // Queues `cases` for `run_id` (those not queued yet).
  QueueSource(reports::WorkQueue& queue, std::string run_id, const std::vector<const TestCase*>& cases,
              const std::map<std::string, reports::CaseHistory>& history, double lease_seconds);

  std::optional<ScheduledJob> next(int64_t memory_in_use, size_t running) override;
  void retry(ScheduledJob job) override { retries_.push_front(std::move(job)); }
  bool empty() override;
  void finished(const ScheduledJob& job) override;
  void tick() override;

 private:
  using Clock = std::chrono::steady_clock;

  reports::WorkQueue& queue_;
  std::string run_id_, owner_;
  double lease_seconds_;
  std::map<std::string, ScheduledJob> jobs_;  // by test id
  std::deque<ScheduledJob> retries_;
  // When to ask again: for a free case, for the count of unfinished ones, to renew the leases.
  Clock::time_point next_poll_, next_count_, next_renewal_;
};

}  // namespace meshtest::runner
