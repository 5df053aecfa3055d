// A small SQL connection interface shared by the SQLite and PostgreSQL back
// ends, so the result store's schema, writes and queries exist once. SQL is
// written with `?` placeholders and SQLite/PostgreSQL-common syntax; each back
// end adapts placeholders and column types to its dialect.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"

namespace meshtest::reports {

using SqlValue = std::variant<std::nullptr_t, int64_t, double, std::string>;

// One row of a query result; cells are text (NULL is nullopt).
class SqlRow {
 public:
  explicit SqlRow(std::vector<std::optional<std::string>> cells) : cells_(std::move(cells)) {}
  std::string text(size_t i) const { return cells_.at(i).value_or(""); }
  double real(size_t i) const;      // NaN when NULL
  int64_t integer(size_t i) const;  // 0 when NULL
  bool is_null(size_t i) const { return !cells_.at(i).has_value(); }
  size_t size() const { return cells_.size(); }

 private:
  std::vector<std::optional<std::string>> cells_;
};

// A prepared statement that is run many times (bulk inserts).
class SqlStatement {
 public:
  virtual ~SqlStatement() = default;
  virtual void run(const std::vector<SqlValue>& params) = 0;
};

// Thrown when the database is locked or a transaction must be retried.
class SqlBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when the connection to a database server is lost or cannot be made
// (server restarted, network down): the write may succeed over a new connection.
class SqlConnectionLost : public Error {
 public:
  using Error::Error;
};

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  virtual std::string describe() const = 0;  // for error messages: the path or URL
  // Runs one or more statements without parameters.
  virtual void exec(const std::string& sql) = 0;
  virtual void run(const std::string& sql, const std::vector<SqlValue>& params) = 0;
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) = 0;
  virtual std::unique_ptr<SqlStatement> prepare(const std::string& sql) = 0;
  // Starts a write transaction that serializes with other writers.
  virtual void begin_write() = 0;
  // Inside begin_write(): blocks other processes migrating at the same time.
  virtual void lock_for_migration() = 0;
  virtual int schema_version() = 0;
  virtual void set_schema_version(int version) = 0;
};

// Runs `body` in a write transaction; commits, or rolls back and rethrows.
// A SqlBusy (lock contention, serialization failure) is retried with backoff.
void with_transaction(SqlDatabase& db, const std::function<void()>& body);

}  // namespace meshtest::reports
