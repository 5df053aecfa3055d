// SqlDatabase over an SQLite file: WAL mode, a busy timeout, BEGIN IMMEDIATE
// write transactions, schema version in PRAGMA user_version.
#pragma once

#include <string>

#include "reports/sql_database.h"

struct sqlite3;

namespace meshtest::reports {

class SqliteDatabase : public SqlDatabase {
 public:
  explicit SqliteDatabase(const std::string& path);
  ~SqliteDatabase() override;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  std::string describe() const override { return "results database '" + path_ + "'"; }
  void exec(const std::string& sql) override;
  void run(const std::string& sql, const std::vector<SqlValue>& params) override;
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override;
  std::unique_ptr<SqlStatement> prepare(const std::string& sql) override;
  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void lock_for_migration() override {}  // BEGIN IMMEDIATE already excludes other writers
  int schema_version() override;
  void set_schema_version(int version) override;

  sqlite3* handle() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace meshtest::reports
