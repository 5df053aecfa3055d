// Writes one run's results to its store through outages: a write that finds
// the connection lost is retried over a fresh connection with backoff, for a
// bounded time from the first failure; meanwhile finished results wait, in
// order, in memory and in a spool file (JSON lines) until the store has them.
// Past the bound, StoreUnreachable says what is spooled and how to resume.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "reports/result_store.h"

namespace meshtest::reports {

// The store stayed unreachable past the bound; the spool keeps what it lacks.
class StoreUnreachable : public Error {
 public:
  using Error::Error;
};

class SpooledStore {
 public:
  using Opener = std::function<std::unique_ptr<ResultStore>()>;

  // `store` is open; `reopen` makes a fresh connection after one is lost.
  SpooledStore(std::unique_ptr<ResultStore> store, Opener reopen, std::string spool_path, double retry_seconds);

  // Wait (up to the bound) until the store has done it.
  void begin_run(const RunInfo& run);
  void finish_run(const std::string& run_id, const std::string& finished_at);
  void mark_interrupted(const std::string& run_id, const std::string& at, const std::string& by);
  void mark_not_run(const std::string& run_id, const std::string& arch, const std::vector<std::string>& test_ids,
                    const std::string& reason);
  // Never waits on an outage: spools the result and tries again at the next
  // call once its backoff has passed. Throws StoreUnreachable past the bound.
  void record(const std::string& run_id, const CaseResult& result);
  // Stores everything spooled, waiting up to the bound.
  void flush();

  size_t spooled() const { return pending_.size(); }
  const std::string& spool_path() const { return spool_path_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::string run_id;
    CaseResult result;
  };

  // One attempt at `write` over the current (or a fresh) connection; false
  // when the connection is lost. Throws StoreUnreachable past the bound.
  bool try_write(const std::function<void(ResultStore&)>& write);
  bool try_flush();
  // Repeats try_write, sleeping the backoff, until it succeeds or throws.
  void write_waiting(const std::function<void(ResultStore&)>& write);
  void save_spool() const;

  std::unique_ptr<ResultStore> store_;
  Opener reopen_;
  std::string spool_path_;
  double retry_seconds_;
  std::deque<Pending> pending_;
  std::string last_error_;
  bool outage_ = false;
  Clock::time_point outage_since_{}, next_try_{};
  double backoff_seconds_ = 0;
};

// Writes the results spooled in `path` for `run_id` into `store` and removes
// the file; returns how many (0 when there is no spool).
size_t replay_spool(ResultStore& store, const std::string& path, const std::string& run_id);

}  // namespace meshtest::reports
