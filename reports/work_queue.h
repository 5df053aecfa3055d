// A run's cases as a work queue in PostgreSQL, shared by any number of
// machines: each claims the longest case nobody holds (SELECT ... FOR UPDATE
// SKIP LOCKED) under a lease it renews while the case runs; a lease that
// expires (the machine died) frees the case for another. Table
// meshtest_queue, created on first use, apart from the results schema.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/sql_database.h"

namespace meshtest::reports {

class WorkQueue {
 public:
  // `url`: postgresql://...; throws meshtest::Error for anything else.
  explicit WorkQueue(const std::string& url);

  // Adds the cases (test id, priority: expected seconds) not yet queued for the run.
  void add(const std::string& run_id, const std::vector<std::pair<std::string, double>>& cases);
  // The highest-priority case that is pending or whose lease expired, now leased
  // to `owner` for `lease_seconds`; nullopt when none is free now.
  std::optional<std::string> claim(const std::string& run_id, const std::string& owner, double lease_seconds);
  // Extends every lease `owner` holds in the run.
  void renew(const std::string& run_id, const std::string& owner, double lease_seconds);
  // The case has its final result.
  void complete(const std::string& run_id, const std::string& test_id);
  // Cases of the run without a final result (pending or leased).
  size_t unfinished(const std::string& run_id);

 private:
  std::unique_ptr<SqlDatabase> db_;
};

}  // namespace meshtest::reports
