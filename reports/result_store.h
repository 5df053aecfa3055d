// Where results are kept: an abstract store (SQLite embedded by default;
// other back ends implement the same interface). Results are written as each
// case finishes, so a killed run loses nothing already recorded.
// Schema: docs/results-schema.md.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports {

// What the scheduler learns from earlier runs of a case.
struct CaseHistory {
  double median_wall_seconds = 0;
  int64_t max_peak_host_rss_bytes = 0;
  int runs = 0;
};

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  virtual void begin_run(const RunInfo& run) = 0;
  virtual void record(const std::string& run_id, const CaseResult& result) = 0;
  virtual void finish_run(const std::string& run_id, const std::string& finished_at) = 0;
  virtual int schema_version() = 0;

  // For --resume: the newest run that never finished, and the ids of the
  // cases a run already has a final result for.
  virtual std::optional<std::string> last_unfinished_run() = 0;
  virtual std::vector<std::string> finished_test_ids(const std::string& run_id) = 0;
  // For scheduling and sharding: duration and memory of each case across the
  // most recent `max_runs` runs that recorded it.
  virtual std::map<std::string, CaseHistory> case_history(int max_runs) = 0;
};

// Opens the store named by `url`: a file path (SQLite).
std::unique_ptr<ResultStore> open_store(const std::string& url);

}  // namespace meshtest::reports
