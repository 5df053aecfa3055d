// QueueSource: claims, lease renewal and completion against the WorkQueue.
#include "runner/engine/queue_source.h"

#include <unistd.h>

#include "core/error.h"

namespace meshtest::runner {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(200);  // asking for freed cases when none is free

std::string this_process() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

QueueSource::QueueSource(reports::WorkQueue& queue, std::string run_id, const std::vector<const TestCase*>& cases,
                         const std::map<std::string, reports::CaseHistory>& history, double lease_seconds)
    : queue_(queue), run_id_(std::move(run_id)), owner_(this_process()), lease_seconds_(lease_seconds) {
  std::vector<std::pair<std::string, double>> priorities;
  for (const TestCase* t : cases) {
    const ScheduledJob job{t, estimate_cost(*t, history), 1};
    jobs_[t->id] = job;
    priorities.emplace_back(t->id, job.cost.seconds);
  }
  queue_.add(run_id_, priorities);
  next_renewal_ = Clock::now() + seconds(lease_seconds_ / 3);
}

std::optional<ScheduledJob> QueueSource::next(int64_t, size_t) {
  if (!retries_.empty()) {
    ScheduledJob job = retries_.front();
    retries_.pop_front();
    return job;
  }
  if (Clock::now() < next_poll_) return std::nullopt;
  if (const std::optional<std::string> id = queue_.claim(run_id_, owner_, lease_seconds_)) {
    const auto it = jobs_.find(*id);
    if (it == jobs_.end()) {
      throw Error("the queue of run '" + run_id_ + "' holds '" + *id +
                  "', which this process did not select: every process of a --queue run must select the same cases");
    }
    return it->second;
  }
  next_poll_ = Clock::now() + kPollInterval;
  return std::nullopt;
}

bool QueueSource::empty() {
  if (!retries_.empty() || Clock::now() < next_count_) return false;
  next_count_ = Clock::now() + kPollInterval;
  return queue_.unfinished(run_id_) == 0;
}

void QueueSource::finished(const ScheduledJob& job) { queue_.complete(run_id_, job.test_case->id); }

void QueueSource::tick() {
  if (Clock::now() < next_renewal_) return;
  queue_.renew(run_id_, owner_, lease_seconds_);
  next_renewal_ = Clock::now() + seconds(lease_seconds_ / 3);
}

}  // namespace meshtest::runner
