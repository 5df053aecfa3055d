// Migrations of the results schema, derived from the records' field
// descriptions (reports/record_fields.h): version 1 creates the tables with
// the fields `since(1)`, each later version adds the columns of the fields
// `since` it, plus the few statements below that columns cannot say (indexes,
// a table rebuild). Types are written the SQLite way (REAL, INTEGER); the
// PostgreSQL back end maps them to DOUBLE PRECISION / BIGINT.
#include "reports/store_schema.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "reports/record_fields.h"
#include "reports/result_rows.h"

namespace meshtest::reports {

namespace {

// Columns before a result's own: the run that owns it.
const char* const kResultOwner = "run_id TEXT NOT NULL REFERENCES runs(run_id)";

// Columns before an output's own: the key of the result that owns it, as of `version`.
std::vector<std::string> output_owner_keys(int version) {
  std::vector<std::string> keys = {"run_id"};
  for (std::string& k : key_columns(result_fields(), version)) keys.push_back(std::move(k));
  return keys;
}
std::string output_owner(int version) {
  std::vector<std::string> columns = {"run_id TEXT NOT NULL"};
  for (std::string& c : key_column_definitions(result_fields(), version)) columns.push_back(std::move(c));
  return column_list(columns);
}

// The selection of every arch (and shard) of a run: what it was asked to run.
const char* const kRunCasesTable =
    "CREATE TABLE run_cases (\n"
    "  run_id TEXT NOT NULL REFERENCES runs(run_id), arch TEXT NOT NULL, test_id TEXT NOT NULL, shard TEXT,\n"
    "  PRIMARY KEY (run_id, arch, test_id)\n);\n";

// outcome counts per run and arch; an xfail is expected, not a failure
const std::string kRunSummaryView =
    "CREATE VIEW run_summary AS\n"
    "  SELECT h.run_id, h.run_started_at, h.arch, COUNT(*) AS results,\n"
    "    SUM(CASE WHEN h.outcome = 'passed' THEN 1 ELSE 0 END) AS passed,\n"
    "    SUM(CASE WHEN h.outcome = 'failed' THEN 1 ELSE 0 END) AS failed,\n"
    "    SUM(CASE WHEN h.outcome = 'error' THEN 1 ELSE 0 END) AS errors,\n"
    "    SUM(CASE WHEN h.outcome = 'xfailed' THEN 1 ELSE 0 END) AS xfailed,\n"
    "    SUM(CASE WHEN h.outcome = 'xpassed' THEN 1 ELSE 0 END) AS xpassed,\n"
    "    SUM(CASE WHEN h.outcome = 'skipped' THEN 1 ELSE 0 END) AS skipped,\n"
    "    SUM(h.passed_on_retry) AS flaky,\n"
    "    (SELECT COUNT(*) FROM missing_cases m WHERE m.run_id = h.run_id AND m.arch = h.arch) AS missing\n"
    "  FROM case_history h GROUP BY h.run_id, h.run_started_at, h.arch;\n";

// Views over the tables, in SQL that SQLite and PostgreSQL both take. A
// later migration that rebuilds `results` or `runs` drops and recreates them
// (PostgreSQL refuses to drop a table a view depends on).
const std::string kViews =
    // the last attempt of each case of each run on each arch: what the run says about the case
    "CREATE VIEW final_results AS\n"
    "  SELECT r.* FROM results r WHERE r.attempt = (SELECT MAX(a.attempt) FROM results a\n"
    "    WHERE a.run_id = r.run_id AND a.arch = r.arch AND a.test_id = r.test_id);\n"
    // one row per case per run per arch, with the run's start time: per-case, per-variant and per-arch history
    "CREATE VIEW case_history AS\n"
    "  SELECT f.run_id, ru.started_at AS run_started_at, f.arch, f.test_id, f.model, f.variant, f.model_group,\n"
    "    f.parallelism, f.run_mode, f.status, f.outcome, f.bringup_status, f.pcc, f.required_pcc, f.wall_seconds,\n"
    "    f.attempt, CASE WHEN f.attempt > 1 AND f.outcome = 'passed' THEN 1 ELSE 0 END AS passed_on_retry\n"
    "  FROM final_results f JOIN runs ru ON ru.run_id = f.run_id;\n"
    // the cases a run selected on an arch that have no result (a lost shard)
    "CREATE VIEW missing_cases AS\n"
    "  SELECT c.run_id, c.arch, c.test_id, c.shard FROM run_cases c WHERE NOT EXISTS (SELECT 1 FROM results r\n"
    "    WHERE r.run_id = c.run_id AND r.arch = c.arch AND r.test_id = c.test_id);\n" +
    kRunSummaryView;

// Schema 15: a selected case the run chose not to start says why (`run
// --budget`: "budget"); missing_cases shows it (run_summary depends on it, so
// both are made again).
const std::string kNotRunReason =
    "ALTER TABLE run_cases ADD COLUMN not_run_reason TEXT;\n"
    "DROP VIEW run_summary;\n"
    "DROP VIEW missing_cases;\n"
    "CREATE VIEW missing_cases AS\n"
    "  SELECT c.run_id, c.arch, c.test_id, c.shard, c.not_run_reason FROM run_cases c WHERE NOT EXISTS (\n"
    "    SELECT 1 FROM results r WHERE r.run_id = c.run_id AND r.arch = c.arch AND r.test_id = c.test_id);\n" +
    kRunSummaryView;

// What a migration does beyond adding its fields' columns.
const std::map<int, const char*> kExtraStatements = {
    {1, "CREATE INDEX results_by_test ON results(test_id, run_id);\n"},
    // runs ordered by start time
    {2, "CREATE INDEX runs_by_start ON runs(started_at);\n"},
    // outputs gain a kind (output | gradient | updated_weight) in the key and
    // their position; the rebuilt table comes from rebuilt_tables(4)
    {4, "INSERT INTO result_outputs_v4 (run_id, test_id, attempt, kind, output_name, position, pcc, atol, rel_l2, "
        "passed)\n"
        "  SELECT run_id, test_id, attempt, 'output', output_name, 0, pcc, atol, rel_l2, passed FROM result_outputs;\n"
        "DROP TABLE result_outputs;\n"
        "ALTER TABLE result_outputs_v4 RENAME TO result_outputs;\n"},
    // arch joins the results' key (one run id, several arches) and so the
    // outputs' owner columns; the rebuilt tables come from rebuilt_tables(5),
    // their rows from copy_into_v5_tables(); the run's selection gets a table
    {5, "DROP TABLE result_outputs;\n"
        "DROP TABLE results;\n"
        "ALTER TABLE results_v5 RENAME TO results;\n"
        "ALTER TABLE result_outputs_v5 RENAME TO result_outputs;\n"
        "CREATE INDEX results_by_test ON results(test_id, run_id);\n"},
    // read-only views for dashboards on the store (Grafana, Superset; docs/results-schema.md "Views")
    {9, kViews.c_str()},
    {15, kNotRunReason.c_str()},
};
// Versions whose migration rebuilds a table instead of adding its columns.
constexpr int kOutputsRebuilt = 4, kResultsRebuilt = 5;

// The table as of `version`: the owner's columns, the fields', then `trailing`.
template <class R>
std::string create_table(const std::string& table, const std::string& owner, const std::vector<Field<R>>& fields,
                         int version, std::vector<std::string> keys, const std::string& trailing = "") {
  std::vector<std::string> columns = column_definitions(fields, version, /*up_to=*/true);
  if (!owner.empty()) columns.insert(columns.begin(), owner);
  if (!trailing.empty()) columns.push_back(trailing);
  for (std::string& k : key_columns(fields, version)) keys.push_back(std::move(k));
  return "CREATE TABLE " + table + " (\n  " + column_list(columns) + ",\n  PRIMARY KEY (" + column_list(keys) +
         ")\n);\n";
}

std::string create_outputs_table(const std::string& table, int version) {
  return create_table(table, output_owner(version), output_fields(), version, output_owner_keys(version),
                      version >= kOutputsRebuilt ? "position INTEGER NOT NULL" : "");  // the output's index in its record
}

template <class R>
std::string add_columns(const std::string& table, const std::vector<Field<R>>& fields, int version) {
  std::string sql;
  for (const std::string& column : column_definitions(fields, version, /*up_to=*/false)) {
    sql += "ALTER TABLE " + table + " ADD COLUMN " + column + ";\n";
  }
  return sql;
}

// Columns of `fields` that exist at schema `version`.
template <class R>
std::vector<std::string> columns_at(const std::vector<Field<R>>& fields, int version) {
  std::vector<std::string> out;
  for (const Field<R>& f : fields) {
    if (!f.column.empty() && f.since_schema <= version) out.emplace_back(f.column);
  }
  return out;
}

// Copies the v4 rows into the v5 tables: a result without an arch gets '',
// an output the arch of its result.
std::string copy_into_v5_tables() {
  std::vector<std::string> result_columns = {"run_id"};
  for (std::string& c : columns_at(result_fields(), 4)) result_columns.push_back(std::move(c));
  std::vector<std::string> selected = result_columns;
  std::replace(selected.begin(), selected.end(), std::string("arch"), std::string("COALESCE(arch, '')"));
  std::vector<std::string> output_columns = {"run_id", "test_id", "attempt", "position"};
  for (std::string& c : columns_at(output_fields(), 4)) output_columns.push_back(std::move(c));
  std::string from_output = column_list(output_columns, "o");
  return "INSERT INTO results_v5 (" + column_list(result_columns) + ")\n  SELECT " + column_list(selected) +
         " FROM results;\n"
         "INSERT INTO result_outputs_v5 (arch, " + column_list(output_columns) + ")\n  SELECT r.arch, " +
         from_output +
         " FROM result_outputs o JOIN results_v5 r"
         " ON r.run_id = o.run_id AND r.test_id = o.test_id AND r.attempt = o.attempt;\n";
}

std::string migration_sql(int version) {
  std::string sql;
  if (version == 1) {
    sql += create_table("runs", "", run_fields(), 1, {});
    sql += create_table("results", kResultOwner, result_fields(), 1, {"run_id"});
    sql += create_outputs_table("result_outputs", 1);
  } else {
    sql += add_columns("runs", run_fields(), version);
    if (version == kResultsRebuilt) {
      sql += create_table("results_v5", kResultOwner, result_fields(), version, {"run_id"});
      sql += create_outputs_table("result_outputs_v5", version);
      sql += copy_into_v5_tables();
      sql += kRunCasesTable;
    } else if (version == kOutputsRebuilt) {
      sql += add_columns("results", result_fields(), version);
      sql += create_outputs_table("result_outputs_v4", version);
    } else {
      sql += add_columns("results", result_fields(), version);
      sql += add_columns("result_outputs", output_fields(), version);
    }
  }
  auto extra = kExtraStatements.find(version);
  if (extra != kExtraStatements.end()) sql += extra->second;
  return sql;
}

}  // namespace

int latest_schema_version() {
  static const int kLatest = std::max({latest_field_version(run_fields()), latest_field_version(result_fields()),
                                       latest_field_version(output_fields()), kExtraStatements.rbegin()->first});
  return kLatest;
}

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
      db.exec(migration_sql(v + 1));
      db.set_schema_version(v + 1);
    }
  });
}

}  // namespace meshtest::reports
