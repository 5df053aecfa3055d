// open_store: picks the back end from the URL.
#include "core/error.h"
#include "reports/result_store.h"
#include "reports/sqlite_store.h"
#ifdef MESHTEST_HAVE_POSTGRES
#include "reports/postgres_database.h"
#endif

namespace meshtest::reports {

bool is_postgres_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

std::unique_ptr<ResultStore> open_store(const std::string& url) {
  if (is_postgres_url(url)) {
#ifdef MESHTEST_HAVE_POSTGRES
    return std::make_unique<SqlStore>(std::make_unique<PostgresDatabase>(url));
#else
    throw Error("this meshtest was built without libpq: PostgreSQL result stores are unavailable (install libpq-dev "
                "and rebuild, or use a SQLite file path)");
#endif
  }
  return std::make_unique<SqliteStore>(url);
}

}  // namespace meshtest::reports
