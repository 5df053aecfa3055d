// The result store over any SqlDatabase: one implementation of writes and
// queries for SQLite and PostgreSQL alike. Every write is a retried
// transaction, so many concurrent writers (workers, shards, machines) lose
// nothing.
#pragma once

#include <memory>

#include "reports/result_store.h"
#include "reports/sql_database.h"

namespace meshtest::reports {

class SqlStore : public ResultStore {
 public:
  // Takes the connection and brings its schema up to date.
  explicit SqlStore(std::unique_ptr<SqlDatabase> db);

  void begin_run(const RunInfo& run) override;
  void record_selection(const std::string& run_id, const std::string& arch, const std::string& shard,
                        const std::vector<std::string>& test_ids) override;
  std::vector<SelectedCase> run_selection(const std::string& run_id) override;
  void mark_not_run(const std::string& run_id, const std::string& arch, const std::vector<std::string>& test_ids,
                    const std::string& reason) override;
  void record(const std::string& run_id, const CaseResult& result) override;
  void record_batch(const std::string& run_id, const std::vector<CaseResult>& results) override;
  void finish_run(const std::string& run_id, const std::string& finished_at) override;
  void mark_interrupted(const std::string& run_id, const std::string& at, const std::string& by) override;
  int schema_version() override;
  std::optional<std::string> last_unfinished_run() override;
  std::map<std::string, LastAttempt> last_attempts(const std::string& run_id, const std::string& arch) override;
  std::map<std::string, CaseHistory> case_history(int max_runs, const std::string& started_before = "",
                                                  const HistoryScope& scope = {}) override;
  std::vector<RunInfo> recent_runs(int limit) override;
  std::optional<RunInfo> find_run(const std::string& run_id) override;
  std::vector<CaseResult> run_results(const std::string& run_id) override;
  std::vector<StoredResult> test_history(const std::string& test_id, int limit) override;

  SqlDatabase& database() { return *db_; }

 private:
  std::vector<RunInfo> runs_where(const std::string& where_sql, const std::vector<SqlValue>& params);
  void attach_outputs(const std::string& run_id, std::vector<CaseResult>& results);

  std::unique_ptr<SqlDatabase> db_;
};

}  // namespace meshtest::reports
