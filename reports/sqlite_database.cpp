// SQLite implementation of SqlDatabase.
#include "reports/sqlite_database.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/error.h"

namespace meshtest::reports {

namespace {

[[noreturn]] void fail(sqlite3* db, int rc, const std::string& what) {
  const std::string msg = what + ": " + sqlite3_errmsg(db);
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw SqlBusy(msg);
  throw Error(msg);
}

class SqliteStatement : public SqlStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql, std::string context) : db_(db), context_(std::move(context)) {
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) fail(db, rc, context_ + ": cannot prepare SQL");
  }
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void bind(const std::vector<SqlValue>& params) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const SqlValue& v = params[i];
      if (const auto* s = std::get_if<std::string>(&v)) {
        // `params` outlives the step that reads it: no copy needed
        sqlite3_bind_text(stmt_, at, s->data(), static_cast<int>(s->size()), SQLITE_STATIC);
      } else if (const auto* n = std::get_if<int64_t>(&v)) {
        sqlite3_bind_int64(stmt_, at, *n);
      } else if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d)) {
        sqlite3_bind_double(stmt_, at, *d);
      } else {
        sqlite3_bind_null(stmt_, at);
      }
    }
  }
  void run(const std::vector<SqlValue>& params) override {
    bind(params);
    const int rc = sqlite3_step(stmt_);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) fail(db_, rc, context_ + ": write failed");
  }
  std::vector<SqlRow> rows(const std::vector<SqlValue>& params) {
    bind(params);
    std::vector<SqlRow> out;
    const int columns = sqlite3_column_count(stmt_);
    int rc;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
      std::vector<std::optional<std::string>> cells(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        const int type = sqlite3_column_type(stmt_, c);
        if (type == SQLITE_NULL) continue;
        if (type == SQLITE_FLOAT) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.17g", sqlite3_column_double(stmt_, c));
          cells[static_cast<size_t>(c)] = buf;
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
          cells[static_cast<size_t>(c)] = std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, c)));
        }
      }
      out.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE) fail(db_, rc, context_ + ": query failed");
    return out;
  }

 private:
  sqlite3* db_;
  std::string context_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

SqliteDatabase::SqliteDatabase(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open results database '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(db_, 30000);
  // Another process creating the same file can hold it briefly. Switching to
  // WAL can report busy at once, without the busy handler waiting, so the
  // tries are paced here too (10, 20, ... ms: about 4 s in all).
  try {
    for (int attempt = 1;; ++attempt) {
      try {
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768;");
        break;
      } catch (const SqlBusy&) {
        if (attempt == 28) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(10 * attempt));
      }
    }
  } catch (...) {  // e.g. a file that is not a database: no destructor runs, so close here (LeakSanitizer)
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(db_); }

void SqliteDatabase::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = describe() + ": " + (err ? err : "unknown error");
    sqlite3_free(err);
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw SqlBusy(msg);
    throw Error(msg);
  }
}

void SqliteDatabase::run(const std::string& sql, const std::vector<SqlValue>& params) {
  SqliteStatement(db_, sql, describe()).run(params);
}

std::vector<SqlRow> SqliteDatabase::query(const std::string& sql, const std::vector<SqlValue>& params) {
  return SqliteStatement(db_, sql, describe()).rows(params);
}

std::unique_ptr<SqlStatement> SqliteDatabase::prepare(const std::string& sql) {
  return std::make_unique<SqliteStatement>(db_, sql, describe());
}

int SqliteDatabase::schema_version() { return static_cast<int>(query("PRAGMA user_version", {}).at(0).integer(0)); }

void SqliteDatabase::set_schema_version(int version) { exec("PRAGMA user_version = " + std::to_string(version)); }

}  // namespace meshtest::reports
