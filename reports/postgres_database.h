// SqlDatabase over a PostgreSQL server (libpq), for a nightly across machines
// writing into one shared database. Same schema as SQLite: REAL/INTEGER
// columns become DOUBLE PRECISION/BIGINT, `?` placeholders become $n, the
// schema version lives in table meshtest_schema, migrations take an advisory lock.
#pragma once

#include <string>

#include "reports/sql_database.h"

struct pg_conn;

namespace meshtest::reports {

class PostgresDatabase : public SqlDatabase {
 public:
  explicit PostgresDatabase(const std::string& url);
  ~PostgresDatabase() override;
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  std::string describe() const override { return "results database '" + redacted_url_ + "'"; }
  void exec(const std::string& sql) override;
  void run(const std::string& sql, const std::vector<SqlValue>& params) override;
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override;
  std::unique_ptr<SqlStatement> prepare(const std::string& sql) override;
  void begin_write() override { exec("BEGIN"); }
  void lock_for_migration() override;
  int schema_version() override;
  void set_schema_version(int version) override;

 private:
  std::string redacted_url_;  // without the password
  pg_conn* conn_ = nullptr;
  int next_statement_ = 0;
};

}  // namespace meshtest::reports
