// Fresh stores for the back-end-parameterized store tests.
#include "tests/reports/store_backends.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "reports/sqlite_database.h"
#ifdef MESHTEST_HAVE_POSTGRES
#include "reports/postgres_database.h"
#endif

namespace meshtest::reports::testing {

namespace {

int counter = 0;

// The SQLite stores this process made, removed (with their -wal and -shm
// files) when it exits: each test runs in a process of its own.
struct MadeFiles {
  std::vector<std::string> paths;
  ~MadeFiles() {
    std::error_code ignored;
    for (const std::string& path : paths) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ignored);
    }
  }
};
MadeFiles& made_files() {
  static MadeFiles files;
  return files;
}

std::string unique_name() { return "meshtest_" + std::to_string(getpid()) + "_" + std::to_string(++counter); }

FreshStore fresh_postgres() {
#ifndef MESHTEST_HAVE_POSTGRES
  return {"", "this build has no libpq (install libpq-dev and reconfigure)"};
#else
  std::string admin_url;
  if (const char* env = std::getenv("MESHTEST_TEST_PG_URL")) {
    admin_url = env;
  } else {
    std::ifstream state(MESHTEST_PG_STATE_FILE);
    if (!state || !std::getline(state, admin_url)) {
      return {"", std::string("no PostgreSQL test server: run through ctest (fixture reports_pg_server writes ") +
                      MESHTEST_PG_STATE_FILE + ") or set MESHTEST_TEST_PG_URL"};
    }
  }
  if (admin_url.rfind("skip: ", 0) == 0) return {"", admin_url.substr(6)};
  const std::string db = unique_name();
  PostgresDatabase(admin_url).exec("CREATE DATABASE " + db);
  // postgresql:///postgres?host=... -> postgresql:///<db>?host=...
  const size_t slash = admin_url.find('/', admin_url.find("://") + 3);
  const size_t end = admin_url.find('?', slash);
  return {admin_url.substr(0, slash + 1) + db + (end == std::string::npos ? "" : admin_url.substr(end)), ""};
#endif
}

}  // namespace

FreshStore fresh_store(const std::string& backend) {
  if (backend == "postgres") return fresh_postgres();
  const auto path = std::filesystem::temp_directory_path() / (unique_name() + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  made_files().paths.push_back(path.string());
  return {path.string(), ""};
}

std::unique_ptr<SqlDatabase> open_database(const std::string& url) {
#ifdef MESHTEST_HAVE_POSTGRES
  if (is_postgres_url(url)) return std::make_unique<PostgresDatabase>(url);
#endif
  return std::make_unique<SqliteDatabase>(url);
}

}  // namespace meshtest::reports::testing
