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
