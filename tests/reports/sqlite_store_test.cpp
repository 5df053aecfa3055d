// SQLite store specifics: WAL mode, records readable by plain SQL, migration from v1.
#include "reports/sqlite_store.h"
#include "reports/store_schema.h"

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

// An SQLite file in the temp dir, removed with its -wal and -shm files when
// it goes out of scope (declared before the stores on it, so after they close).
struct TempDb {
  std::string path;
  explicit TempDb(const std::string& name)
      : path((std::filesystem::temp_directory_path() / ("meshtest_" + name + "_" + std::to_string(getpid()) + ".db"))
                 .string()) {
    remove_files();
  }
  ~TempDb() { remove_files(); }
  void remove_files() const {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ignored);
  }
};

TEST(SqliteStore, RecordsRunsResultsAndOutputs) {
  const TempDb file("store");
  const std::string& path = file.path;
  {
    SqliteStore store(path);
    EXPECT_EQ(store.schema_version(), latest_schema_version());
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
  EXPECT_EQ(reopened.schema_version(), latest_schema_version());
  EXPECT_EQ(query_one(reopened.handle(), "SELECT count(*) FROM results"), "1");
}

TEST(SqliteStore, MigratesAVersion1DatabaseKeepingItsRows) {
  const TempDb file("v1");
  const std::string& path = file.path;
  {
    SqliteDatabase db(path);
    migrate_schema(db, 1);
    db.exec("INSERT INTO runs (run_id, started_at) VALUES ('old', '2026-01-01T00:00:00.000Z');"
            "INSERT INTO results (run_id, test_id, attempt, outcome, pcc) VALUES ('old', 't', 1, 'passed', 0.995);"
            "INSERT INTO result_outputs (run_id, test_id, attempt, output_name, pcc, passed) "
            "VALUES ('old', 't', 1, 'logits', 0.995, 1);");
    EXPECT_EQ(db.schema_version(), 1);
  }
  SqliteStore store(path);
  EXPECT_EQ(store.schema_version(), latest_schema_version());
  const auto results = store.run_results("old");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::Passed);
  EXPECT_DOUBLE_EQ(results[0].pcc, 0.995);
  EXPECT_TRUE(results[0].guidance.empty());
  ASSERT_EQ(results[0].outputs.size(), 1u);  // v4 rebuilt result_outputs and kept the row
  EXPECT_EQ(results[0].outputs[0].kind, "output");
  EXPECT_EQ(results[0].outputs[0].name, "logits");
}

TEST(SqliteStore, RefusesADatabaseFromANewerMeshtest) {
  const TempDb file("newer");
  const std::string& path = file.path;
  { SqliteDatabase(path).set_schema_version(99); }
  try {
    SqliteStore store(path);
    FAIL() << "opened a schema-99 database";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this meshtest"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace meshtest::reports
