// SQLite result store: versioned schema with migrations, WAL mode, a busy
// timeout so concurrent writers (workers, shards) wait instead of failing.
#pragma once

#include <string>

#include "reports/result_store.h"

struct sqlite3;

namespace meshtest::reports {

class SqliteStore : public ResultStore {
 public:
  explicit SqliteStore(const std::string& path);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  void begin_run(const RunInfo& run) override;
  void record(const std::string& run_id, const CaseResult& result) override;
  void finish_run(const std::string& run_id, const std::string& finished_at) override;
  int schema_version() override;
  std::optional<std::string> last_unfinished_run() override;
  std::vector<std::string> finished_test_ids(const std::string& run_id) override;
  std::map<std::string, CaseHistory> case_history(int max_runs) override;

  sqlite3* handle() { return db_; }

 private:
  void exec(const std::string& sql);
  void migrate();

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace meshtest::reports
