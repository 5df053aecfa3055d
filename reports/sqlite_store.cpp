// SQLite result store.
#include "reports/sqlite_store.h"

namespace meshtest::reports {

SqliteStore::SqliteStore(const std::string& path) : SqlStore(std::make_unique<SqliteDatabase>(path)) {}

}  // namespace meshtest::reports
