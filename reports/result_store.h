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

// A result with the run it belongs to.
struct StoredResult {
  std::string run_id;
  CaseResult result;
};

// One case a run was asked to run, on one arch (written when its shard begins).
struct SelectedCase {
  std::string arch, test_id, shard;  // shard as "2/3"; "" when not sharded
  std::string not_run_reason;        // why the run chose not to start it ("budget": run --budget); "" otherwise
};

// Whose history: results of one arch and backend (empty: any). A result
// stored without a backend (before schema 14) counts for every backend.
struct HistoryScope {
  std::string arch, backend;
};

struct LastAttempt {
  int attempt = 0;
  Outcome outcome = Outcome::Error;
};

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  // Creates the run, or joins it (another arch or shard under the same run
  // id): run.arch is added to the run's set of arches.
  virtual void begin_run(const RunInfo& run) = 0;
  // What a shard of the run was asked to run on `arch` (its selected ids).
  virtual void record_selection(const std::string& run_id, const std::string& arch, const std::string& shard,
                                const std::vector<std::string>& test_ids) = 0;
  virtual std::vector<SelectedCase> run_selection(const std::string& run_id) = 0;
  // Selected cases of the run on `arch` it chose not to start, and why
  // ("budget"); they stay MISSING (no result) with that reason.
  virtual void mark_not_run(const std::string& run_id, const std::string& arch,
                            const std::vector<std::string>& test_ids, const std::string& reason) = 0;
  virtual void record(const std::string& run_id, const CaseResult& result) = 0;
  // Many results in one transaction (imports, benchmarks): far faster than record() in a loop.
  virtual void record_batch(const std::string& run_id, const std::vector<CaseResult>& results) = 0;
  virtual void finish_run(const std::string& run_id, const std::string& finished_at) = 0;
  // A signal stopped the run: it stays unfinished (--resume continues it), marked when and by what.
  virtual void mark_interrupted(const std::string& run_id, const std::string& at, const std::string& by) = 0;
  virtual int schema_version() = 0;

  // For --resume: the newest run that never finished, and the highest
  // attempt each case of a run has recorded on `arch`, with its outcome.
  virtual std::optional<std::string> last_unfinished_run() = 0;
  virtual std::map<std::string, LastAttempt> last_attempts(const std::string& run_id, const std::string& arch) = 0;
  // For scheduling and sharding: duration and memory of each case across the
  // most recent `max_runs` runs that recorded it; with `started_before` (ISO
  // 8601), only attempts that started earlier (a resumed run keeps the
  // history, and so the shards, it started with); with `scope`, only that
  // arch's and backend's results (run --budget, collect --estimate).
  virtual std::map<std::string, CaseHistory> case_history(int max_runs, const std::string& started_before = "",
                                                          const HistoryScope& scope = {}) = 0;

  // Reading, for report/history/diff/flaky/promote.
  virtual std::vector<RunInfo> recent_runs(int limit) = 0;  // newest first
  virtual std::optional<RunInfo> find_run(const std::string& run_id) = 0;
  // Every attempt of every case of the run (every arch), with its outputs,
  // ordered by test id, arch and attempt.
  virtual std::vector<CaseResult> run_results(const std::string& run_id) = 0;
  // The case's results across the `limit` most recent runs that have it, newest first.
  virtual std::vector<StoredResult> test_history(const std::string& test_id, int limit) = 0;
};

// Opens the store named by `url`: a file path (SQLite) or a postgresql:// URL
// (PostgreSQL, when this build has libpq). Creates or migrates the schema.
std::unique_ptr<ResultStore> open_store(const std::string& url);
bool is_postgres_url(const std::string& url);

}  // namespace meshtest::reports
