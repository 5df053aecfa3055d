// Migrations of the results schema. Types are written the SQLite way (REAL,
// INTEGER); the PostgreSQL back end maps them to DOUBLE PRECISION / BIGINT.
#include "reports/store_schema.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace meshtest::reports {

namespace {

const std::vector<const char*> kMigrations = {
    // v1: runs, one row per case per attempt, one row per output.
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
    // v2: guidance tags, peak L1, runs ordered by start time.
    R"sql(
ALTER TABLE results ADD COLUMN guidance TEXT;
ALTER TABLE results ADD COLUMN peak_device_l1_bytes INTEGER;
CREATE INDEX runs_by_start ON runs(started_at);
)sql",
    // v3: an isolated worker's captured stdout/stderr (issue 8).
    R"sql(
ALTER TABLE results ADD COLUMN captured_output TEXT;
)sql",
    // v4: compile statistics, meshes (issue 5) and training (issue 6):
    // per-chip peaks, collectives, leaks, sharding fallbacks, the execution
    // pass; outputs gain a kind (output | gradient | updated_weight, part of
    // the key: a gradient is named after its parameter) and their position.
    R"sql(
ALTER TABLE results ADD COLUMN compile_stats TEXT;
ALTER TABLE results ADD COLUMN per_chip_peak_dram_bytes TEXT;
ALTER TABLE results ADD COLUMN collectives_executed INTEGER;
ALTER TABLE results ADD COLUMN bytes_moved_between_chips INTEGER;
ALTER TABLE results ADD COLUMN device_bytes_leaked INTEGER;
ALTER TABLE results ADD COLUMN sharding_fallbacks TEXT;
ALTER TABLE results ADD COLUMN execution_pass TEXT;
CREATE TABLE result_outputs_v4 (
  run_id TEXT NOT NULL, test_id TEXT NOT NULL, attempt INTEGER NOT NULL,
  kind TEXT NOT NULL, output_name TEXT NOT NULL, position INTEGER NOT NULL,
  pcc REAL, atol REAL, rel_l2 REAL, passed INTEGER,
  PRIMARY KEY (run_id, test_id, attempt, kind, output_name)
);
INSERT INTO result_outputs_v4 (run_id, test_id, attempt, kind, output_name, position, pcc, atol, rel_l2, passed)
  SELECT run_id, test_id, attempt, 'output', output_name, 0, pcc, atol, rel_l2, passed FROM result_outputs;
DROP TABLE result_outputs;
ALTER TABLE result_outputs_v4 RENAME TO result_outputs;
)sql",
};

}  // namespace

int latest_schema_version() { return static_cast<int>(kMigrations.size()); }

void migrate_schema(SqlDatabase& db, int target) {
  if (target < 0) target = latest_schema_version();
  try {
    if (db.schema_version() == target) return;  // the common case, without taking the write lock
  } catch (const SqlBusy&) {
    // another process is creating or migrating the store: the transaction below waits for it
  }
  with_transaction(db, [&] {
    db.lock_for_migration();
    const int current = db.schema_version();
    if (current > latest_schema_version()) {
      throw Error(db.describe() + " has schema version " + std::to_string(current) +
                  ", newer than this meshtest understands (" + std::to_string(latest_schema_version()) + ")");
    }
    for (int v = current; v < target; ++v) {
      db.exec(kMigrations[static_cast<size_t>(v)]);
      db.set_schema_version(v + 1);
    }
  });
}

}  // namespace meshtest::reports
