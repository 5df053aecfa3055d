// SQLite store: schema created at version 1, records readable by plain SQL.
#include "reports/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

namespace meshtest::reports {
namespace {

std::string query_one(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string out;
  if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0)) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  return out;
}

TEST(SqliteStore, RecordsRunsResultsAndOutputs) {
  const std::string path = (std::filesystem::temp_directory_path() / ("meshtest_store_" + std::to_string(getpid()) + ".db")).string();
  std::filesystem::remove(path);
  {
    SqliteStore store(path);
    EXPECT_EQ(store.schema_version(), 1);
    RunInfo run;
    run.run_id = "run-1";
    run.started_at = "2026-11-22T00:00:00.000Z";
    store.begin_run(run);
    CaseResult r;
    r.test_id = "resnet/native-resnet50-single_device-inference";
    r.outcome = Outcome::Passed;
    r.pcc = 0.9991;
    r.outputs.push_back({"logits", 0.9991, 0.02, 0.01, true});
    store.record("run-1", r);
    store.finish_run("run-1", "2026-11-22T00:01:00.000Z");
    EXPECT_EQ(query_one(store.handle(), "SELECT outcome FROM results"), "passed");
    EXPECT_EQ(query_one(store.handle(), "SELECT output_name FROM result_outputs"), "logits");
    EXPECT_EQ(query_one(store.handle(), "SELECT finished_at FROM runs"), "2026-11-22T00:01:00.000Z");
    EXPECT_EQ(query_one(store.handle(), "PRAGMA journal_mode"), "wal");
  }
  SqliteStore reopened(path);  // migrations are idempotent
  EXPECT_EQ(reopened.schema_version(), 1);
  EXPECT_EQ(query_one(reopened.handle(), "SELECT count(*) FROM results"), "1");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace meshtest::reports
