// Fresh, empty result stores on each back end under test: an SQLite file in
// the temp dir, or a new database on the PostgreSQL server that the ctest
// fixture reports_pg_server started (its URL is in MESHTEST_PG_STATE_FILE).
#pragma once

#include <memory>
#include <string>

#include "reports/result_store.h"
#include "reports/sql_database.h"

namespace meshtest::reports::testing {

struct FreshStore {
  std::string url;          // what open_store() takes
  std::string skip_reason;  // non-empty: this back end cannot be tested here
};

// backend: "sqlite" or "postgres". Each call gives a new empty store.
FreshStore fresh_store(const std::string& backend);

// The bare database behind a store URL (no migration), to write an old schema.
std::unique_ptr<SqlDatabase> open_database(const std::string& url);

}  // namespace meshtest::reports::testing
