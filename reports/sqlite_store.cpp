// SQLite implementation of the result store.
#include "reports/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace meshtest::reports {

namespace {

// Each entry migrates the schema from version i to i+1.
const std::vector<const char*> kMigrations = {
    R"sql(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  git_sha TEXT, host TEXT, argv TEXT, arch TEXT, selection TEXT, versions TEXT,
  started_at TEXT, finished_at TEXT
);
CREATE TABLE results (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  test_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  loader_dir TEXT, model TEXT, variant TEXT, parallelism TEXT, run_mode TEXT,
  model_group TEXT, task TEXT, source TEXT, framework TEXT, arch TEXT, mesh TEXT, markers TEXT,
  status TEXT, reason TEXT, outcome TEXT NOT NULL, bringup_status TEXT, phase TEXT,
  failure_kind TEXT, error_message TEXT,
  pcc REAL, atol REAL, rel_l2 REAL, required_pcc REAL, required_atol REAL,
  assert_pcc INTEGER, assert_atol INTEGER, assert_allclose INTEGER,
  load_seconds REAL, golden_seconds REAL, compile_seconds REAL, execute_seconds REAL, compare_seconds REAL,
  wall_seconds REAL, peak_host_rss_bytes INTEGER, peak_device_dram_bytes INTEGER, device_ops INTEGER,
  compile_cache_hit INTEGER, started_at TEXT, finished_at TEXT,
  PRIMARY KEY (run_id, test_id, attempt)
);
CREATE TABLE result_outputs (
  run_id TEXT NOT NULL, test_id TEXT NOT NULL, attempt INTEGER NOT NULL,
  output_name TEXT NOT NULL, pcc REAL, atol REAL, rel_l2 REAL, passed INTEGER,
  PRIMARY KEY (run_id, test_id, attempt, output_name)
);
CREATE INDEX results_by_test ON results(test_id, run_id);
)sql",
};

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw Error(std::string("SQLite prepare failed: ") + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& text(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& real(int i, double v) {
    if (std::isfinite(v)) sqlite3_bind_double(stmt_, i, v);
    else sqlite3_bind_null(stmt_, i);
    return *this;
  }
  Statement& integer(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  void run() {
    if (sqlite3_step(stmt_) != SQLITE_DONE) throw Error(std::string("SQLite write failed: ") + sqlite3_errmsg(db_));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string join_markers(const std::vector<std::string>& markers) {
  std::string out;
  for (const auto& m : markers) out += (out.empty() ? "" : ",") + m;
  return out;
}

}  // namespace

SqliteStore::SqliteStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open results database '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(db_, 30000);
  exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  migrate();
}

SqliteStore::~SqliteStore() { sqlite3_close(db_); }

void SqliteStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error("results database '" + path_ + "': " + msg);
  }
}

int SqliteStore::schema_version() {
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &stmt, nullptr);
  int version = 0;
  if (sqlite3_step(stmt) == SQLITE_ROW) version = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  return version;
}

void SqliteStore::migrate() {
  exec("BEGIN IMMEDIATE");
  try {
    const int current = schema_version();
    if (current > static_cast<int>(kMigrations.size())) {
      throw Error("results database '" + path_ + "' has schema version " + std::to_string(current) +
                  ", newer than this meshtest understands (" + std::to_string(kMigrations.size()) + ")");
    }
    for (size_t v = static_cast<size_t>(current); v < kMigrations.size(); ++v) {
      exec(kMigrations[v]);
      exec("PRAGMA user_version = " + std::to_string(v + 1));
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void SqliteStore::begin_run(const RunInfo& run) {
  Statement(db_,
            "INSERT OR REPLACE INTO runs (run_id, git_sha, host, argv, arch, selection, versions, started_at, "
            "finished_at) VALUES (?,?,?,?,?,?,?,?,NULL)")
      .text(1, run.run_id).text(2, run.git_sha).text(3, run.host).text(4, run.argv).text(5, run.arch)
      .text(6, run.selection).text(7, run.versions).text(8, run.started_at).run();
}

void SqliteStore::finish_run(const std::string& run_id, const std::string& finished_at) {
  Statement(db_, "UPDATE runs SET finished_at = ? WHERE run_id = ?").text(1, finished_at).text(2, run_id).run();
}

void SqliteStore::record(const std::string& run_id, const CaseResult& r) {
  exec("BEGIN IMMEDIATE");
  try {
    Statement s(db_,
                "INSERT OR REPLACE INTO results (run_id, test_id, attempt, loader_dir, model, variant, parallelism, "
                "run_mode, model_group, task, source, framework, arch, mesh, markers, status, reason, outcome, "
                "bringup_status, phase, failure_kind, error_message, pcc, atol, rel_l2, required_pcc, required_atol, "
                "assert_pcc, assert_atol, assert_allclose, load_seconds, golden_seconds, compile_seconds, "
                "execute_seconds, compare_seconds, wall_seconds, peak_host_rss_bytes, peak_device_dram_bytes, "
                "device_ops, compile_cache_hit, started_at, finished_at) VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.text(1, run_id).text(2, r.test_id).integer(3, r.attempt).text(4, r.loader_dir).text(5, r.model)
        .text(6, r.variant).text(7, r.parallelism).text(8, r.run_mode).text(9, r.group).text(10, r.task)
        .text(11, r.source).text(12, r.framework).text(13, r.arch).text(14, r.mesh).text(15, join_markers(r.markers))
        .text(16, r.status).text(17, r.reason).text(18, std::string(outcome_name(r.outcome)))
        .text(19, r.bringup_status).text(20, r.phase).text(21, std::string(failure_kind_name(r.failure_kind)))
        .text(22, r.error_message).real(23, r.pcc).real(24, r.atol).real(25, r.rel_l2).real(26, r.required_pcc)
        .real(27, r.required_atol).integer(28, r.assert_pcc).integer(29, r.assert_atol)
        .integer(30, r.assert_allclose).real(31, r.seconds.load).real(32, r.seconds.golden)
        .real(33, r.seconds.compile).real(34, r.seconds.execute).real(35, r.seconds.compare)
        .real(36, r.wall_seconds).integer(37, r.peak_host_rss_bytes).integer(38, r.peak_device_dram_bytes)
        .integer(39, r.device_ops).integer(40, r.compile_cache_hit).text(41, r.started_at).text(42, r.finished_at)
        .run();
    for (const OutputResult& o : r.outputs) {
      Statement(db_,
                "INSERT OR REPLACE INTO result_outputs (run_id, test_id, attempt, output_name, pcc, atol, rel_l2, "
                "passed) VALUES (?,?,?,?,?,?,?,?)")
          .text(1, run_id).text(2, r.test_id).integer(3, r.attempt).text(4, o.name).real(5, o.pcc)
          .real(6, o.atol).real(7, o.rel_l2).integer(8, o.passed).run();
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<std::string> SqliteStore::last_unfinished_run() {
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "SELECT run_id FROM runs WHERE finished_at IS NULL ORDER BY started_at DESC LIMIT 1", -1,
                     &stmt, nullptr);
  std::optional<std::string> out;
  if (sqlite3_step(stmt) == SQLITE_ROW) out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  return out;
}

std::vector<std::string> SqliteStore::finished_test_ids(const std::string& run_id) {
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_, "SELECT DISTINCT test_id FROM results WHERE run_id = ? ORDER BY test_id", -1, &stmt,
                     nullptr);
  sqlite3_bind_text(stmt, 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<std::string> ids;
  while (sqlite3_step(stmt) == SQLITE_ROW) ids.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  sqlite3_finalize(stmt);
  return ids;
}

std::map<std::string, CaseHistory> SqliteStore::case_history(int max_runs) {
  // Per case, the wall times and peak RSS of its `max_runs` most recent attempts.
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db_,
                     "SELECT test_id, wall_seconds, peak_host_rss_bytes FROM ("
                     "  SELECT test_id, wall_seconds, peak_host_rss_bytes,"
                     "         ROW_NUMBER() OVER (PARTITION BY test_id ORDER BY started_at DESC) AS n"
                     "  FROM results) WHERE n <= ? ORDER BY test_id",
                     -1, &stmt, nullptr);
  sqlite3_bind_int(stmt, 1, max_runs);
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, CaseHistory> out;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const std::string id = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    times[id].push_back(sqlite3_column_double(stmt, 1));
    CaseHistory& h = out[id];
    h.max_peak_host_rss_bytes = std::max<int64_t>(h.max_peak_host_rss_bytes, sqlite3_column_int64(stmt, 2));
    ++h.runs;
  }
  sqlite3_finalize(stmt);
  for (auto& [id, t] : times) {
    std::sort(t.begin(), t.end());
    out[id].median_wall_seconds = t[t.size() / 2];
  }
  return out;
}

std::unique_ptr<ResultStore> open_store(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) {
    throw Error("PostgreSQL result stores are not supported by this build (use a SQLite file path)");
  }
  return std::make_unique<SqliteStore>(url);
}

}  // namespace meshtest::reports
