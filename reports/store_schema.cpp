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

// Columns before a record's own: the keys of the row that owns it.
const char* const kResultOwner = "run_id TEXT NOT NULL REFERENCES runs(run_id)";
const char* const kOutputOwner = "run_id TEXT NOT NULL, test_id TEXT NOT NULL, attempt INTEGER NOT NULL";

// What a migration does beyond adding its fields' columns.
const std::map<int, const char*> kExtraStatements = {
    {1, "CREATE INDEX results_by_test ON results(test_id, run_id);\n"},
    // runs ordered by start time
    {2, "CREATE INDEX runs_by_start ON runs(started_at);\n"},
    // outputs gain a kind (output | gradient | updated_weight) in the key and
    // their position; the rebuilt table comes from create_outputs_table(4)
    {4, "INSERT INTO result_outputs_v4 (run_id, test_id, attempt, kind, output_name, position, pcc, atol, rel_l2, "
        "passed)\n"
        "  SELECT run_id, test_id, attempt, 'output', output_name, 0, pcc, atol, rel_l2, passed FROM result_outputs;\n"
        "DROP TABLE result_outputs;\n"
        "ALTER TABLE result_outputs_v4 RENAME TO result_outputs;\n"},
};
// Version whose migration rebuilds result_outputs instead of adding its columns.
constexpr int kOutputsRebuilt = 4;

std::string comma_list(const std::vector<std::string>& items) { return column_list(items); }

// The table as of `version`: the owner's columns, the fields', then `trailing`.
template <class R>
std::string create_table(const std::string& table, const std::string& owner, const std::vector<Field<R>>& fields,
                         int version, std::vector<std::string> keys, const std::string& trailing = "") {
  std::vector<std::string> columns = column_definitions(fields, version, /*up_to=*/true);
  if (!owner.empty()) columns.insert(columns.begin(), owner);
  if (!trailing.empty()) columns.push_back(trailing);
  for (std::string& k : key_columns(fields, version)) keys.push_back(std::move(k));
  return "CREATE TABLE " + table + " (\n  " + comma_list(columns) + ",\n  PRIMARY KEY (" + comma_list(keys) +
         ")\n);\n";
}

template <class R>
std::string add_columns(const std::string& table, const std::vector<Field<R>>& fields, int version) {
  std::string sql;
  for (const std::string& column : column_definitions(fields, version, /*up_to=*/false)) {
    sql += "ALTER TABLE " + table + " ADD COLUMN " + column + ";\n";
  }
  return sql;
}

std::string migration_sql(int version) {
  const std::vector<std::string> result_keys = {"run_id"}, output_keys = {"run_id", "test_id", "attempt"};
  std::string sql;
  if (version == 1) {
    sql += create_table("runs", "", run_fields(), 1, {});
    sql += create_table("results", kResultOwner, result_fields(), 1, result_keys);
    sql += create_table("result_outputs", kOutputOwner, output_fields(), 1, output_keys);
  } else {
    sql += add_columns("runs", run_fields(), version);
    sql += add_columns("results", result_fields(), version);
    if (version == kOutputsRebuilt) {
      sql += create_table("result_outputs_v4", kOutputOwner, output_fields(), version, output_keys,
                          "position INTEGER NOT NULL");  // the output's index in its record
    } else {
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
