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

// The read-only views over the tables (docs/results-schema.md "Views"), in
// SQL that SQLite and PostgreSQL both take, as of schema `version`: made at
// 9; 15 adds missing_cases.not_run_reason; 16 (backend in the results' key)
// takes the last attempt per backend and adds the backend to case_history
// and run_summary. A migration that rebuilds `results` drops and remakes
// them (PostgreSQL refuses to drop a table a view depends on).
std::string final_results_view(int version) {
  const std::string same_backend = version >= 16 ? " AND a.backend = r.backend" : "";
  // the last attempt of each case of each run on each arch (and backend): what the run says about the case
  return "CREATE VIEW final_results AS\n"
         "  SELECT r.* FROM results r WHERE r.attempt = (SELECT MAX(a.attempt) FROM results a\n"
         "    WHERE a.run_id = r.run_id AND a.arch = r.arch AND a.test_id = r.test_id" + same_backend + ");\n";
}
std::string case_history_view(int version) {
  const std::string backend = version >= 16 ? " f.backend," : "";
  // one row per case per run per arch, with the run's start time: per-case, per-variant and per-arch history
  return "CREATE VIEW case_history AS\n"
         "  SELECT f.run_id, ru.started_at AS run_started_at, f.arch," + backend +
         " f.test_id, f.model, f.variant, f.model_group,\n"
         "    f.parallelism, f.run_mode, f.status, f.outcome, f.bringup_status, f.pcc, f.required_pcc, f.wall_seconds,\n"
         "    f.attempt, CASE WHEN f.attempt > 1 AND f.outcome = 'passed' THEN 1 ELSE 0 END AS passed_on_retry\n"
         "  FROM final_results f JOIN runs ru ON ru.run_id = f.run_id;\n";
}
std::string missing_cases_view(int version) {
  const std::string reason = version >= 15 ? ", c.not_run_reason" : "";
  // the cases a run selected on an arch that have no result (a lost shard, a budget)
  return "CREATE VIEW missing_cases AS\n"
         "  SELECT c.run_id, c.arch, c.test_id, c.shard" + reason + " FROM run_cases c WHERE NOT EXISTS (\n"
         "    SELECT 1 FROM results r WHERE r.run_id = c.run_id AND r.arch = c.arch AND r.test_id = c.test_id);\n";
}
std::string run_summary_view(int version) {
  const std::string backend = version >= 16 ? " h.backend," : "";
  // outcome counts per run and arch (and backend); an xfail is expected, not a failure
  return "CREATE VIEW run_summary AS\n"
         "  SELECT h.run_id, h.run_started_at, h.arch," + backend + " COUNT(*) AS results,\n"
         "    SUM(CASE WHEN h.outcome = 'passed' THEN 1 ELSE 0 END) AS passed,\n"
         "    SUM(CASE WHEN h.outcome = 'failed' THEN 1 ELSE 0 END) AS failed,\n"
         "    SUM(CASE WHEN h.outcome = 'error' THEN 1 ELSE 0 END) AS errors,\n"
         "    SUM(CASE WHEN h.outcome = 'xfailed' THEN 1 ELSE 0 END) AS xfailed,\n"
         "    SUM(CASE WHEN h.outcome = 'xpassed' THEN 1 ELSE 0 END) AS xpassed,\n"
         "    SUM(CASE WHEN h.outcome = 'skipped' THEN 1 ELSE 0 END) AS skipped,\n"
         "    SUM(h.passed_on_retry) AS flaky,\n"
         "    (SELECT COUNT(*) FROM missing_cases m WHERE m.run_id = h.run_id AND m.arch = h.arch) AS missing\n"
         "  FROM case_history h GROUP BY h.run_id, h.run_started_at, h.arch" + (version >= 16 ? ", h.backend" : "") +
         ";\n";
}
std::string all_views(int version) {
  return final_results_view(version) + case_history_view(version) + missing_cases_view(version) +
         run_summary_view(version);
}
const char* const kDropAllViews =
    "DROP VIEW run_summary;\nDROP VIEW missing_cases;\nDROP VIEW case_history;\nDROP VIEW final_results;\n";

// Schema 15: a selected case the run chose not to start says why (`run
// --budget`: "budget"); missing_cases shows it (run_summary depends on it, so
// both are made again).
const std::string kNotRunReason = "ALTER TABLE run_cases ADD COLUMN not_run_reason TEXT;\n"
                                  "DROP VIEW run_summary;\n"
                                  "DROP VIEW missing_cases;\n" +
                                  missing_cases_view(15) + run_summary_view(15);

// Schema 16: the backend joins the results' key (two backends' results for
// one run id, arch and case are two rows); the rebuilt tables come from
// rebuilt_tables(16), their rows from copy_into_rebuilt_tables(16, ...); the
// views are remade over them.
const std::string kBackendInKey = std::string(kDropAllViews) +
                                  "DROP TABLE result_outputs;\n"
                                  "DROP TABLE results;\n"
                                  "ALTER TABLE results_v16 RENAME TO results;\n"
                                  "ALTER TABLE result_outputs_v16 RENAME TO result_outputs;\n"
                                  "CREATE INDEX results_by_test ON results(test_id, run_id);\n" +
                                  all_views(16);

const std::string kViewsV9 = all_views(9);

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
    {9, kViewsV9.c_str()},
    {15, kNotRunReason.c_str()},
    {16, kBackendInKey.c_str()},
};
// Versions whose migration rebuilds a table instead of adding its columns;
// the results' are rebuilt when a column joins their key.
constexpr int kOutputsRebuilt = 4;
struct KeyRebuild {
  int version;
  const char* column;         // the column that joins the results' key
  const char* old_rows_value;  // what rows from before hold in it
};
constexpr KeyRebuild kKeyRebuilds[] = {{5, "arch", "''"}, {16, "backend", "'simulated'"}};
const KeyRebuild* key_rebuild(int version) {
  for (const KeyRebuild& k : kKeyRebuilds) {
    if (k.version == version) return &k;
  }
  return nullptr;
}

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

// Copies the rows of before `k.version` into its rebuilt tables
// (results_vN, result_outputs_vN): a result without a value in the column
// that joins the key gets `k.old_rows_value`, an output its result's value.
std::string copy_into_rebuilt_tables(const KeyRebuild& k) {
  const int before = k.version - 1;
  const std::string table = "_v" + std::to_string(k.version);
  std::vector<std::string> result_columns = {"run_id"};
  for (std::string& c : columns_at(result_fields(), before)) result_columns.push_back(std::move(c));
  std::vector<std::string> selected = result_columns;
  std::replace(selected.begin(), selected.end(), std::string(k.column),
               "COALESCE(" + std::string(k.column) + ", " + k.old_rows_value + ")");
  const std::vector<std::string> owner = output_owner_keys(before);
  std::vector<std::string> output_columns = owner;
  output_columns.emplace_back("position");
  for (std::string& c : columns_at(output_fields(), before)) output_columns.push_back(std::move(c));
  std::string same_owner;
  for (const std::string& c : owner) same_owner += (same_owner.empty() ? "" : " AND ") + ("r." + c + " = o." + c);
  return "INSERT INTO results" + table + " (" + column_list(result_columns) + ")\n  SELECT " + column_list(selected) +
         " FROM results;\n"
         "INSERT INTO result_outputs" + table + " (" + k.column + ", " + column_list(output_columns) + ")\n  SELECT r." +
         k.column + ", " + column_list(output_columns, "o") + " FROM result_outputs o JOIN results" + table + " r ON " +
         same_owner + ";\n";
}

std::string migration_sql(int version) {
  std::string sql;
  if (version == 1) {
    sql += create_table("runs", "", run_fields(), 1, {});
    sql += create_table("results", kResultOwner, result_fields(), 1, {"run_id"});
    sql += create_outputs_table("result_outputs", 1);
  } else {
    sql += add_columns("runs", run_fields(), version);
    if (const KeyRebuild* rebuild = key_rebuild(version)) {
      const std::string table = "_v" + std::to_string(version);
      sql += create_table("results" + table, kResultOwner, result_fields(), version, {"run_id"});
      sql += create_outputs_table("result_outputs" + table, version);
      sql += copy_into_rebuilt_tables(*rebuild);
      if (version == 5) sql += kRunCasesTable;
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
