// The embedded default result store: SqlStore over an SQLite file (WAL mode,
// busy timeout and retried transactions for concurrent writers).
#pragma once

#include <string>

#include "reports/sql_store.h"
#include "reports/sqlite_database.h"

namespace meshtest::reports {

class SqliteStore : public SqlStore {
 public:
  explicit SqliteStore(const std::string& path);
  sqlite3* handle() { return static_cast<SqliteDatabase&>(database()).handle(); }
};

}  // namespace meshtest::reports
