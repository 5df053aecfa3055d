// The mapping between the records (CaseResult, its outputs, RunInfo) and rows
// of the `results`, `result_outputs` and `runs` tables, derived from the
// field descriptions in reports/record_fields.h.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"
#include "reports/sql_database.h"

namespace meshtest::reports {

// Column names of `results` in the order of result_values(), run_id first;
// the first result_key_columns() of them are the primary key.
const std::vector<std::string>& result_columns();
size_t result_key_columns();
std::vector<SqlValue> result_values(const std::string& run_id, const CaseResult& result);
// Reads the columns of result_columns() starting at cell `first` (run_id is not read).
CaseResult result_from_row(const SqlRow& row, size_t first = 0);

// run_id, test_id, attempt, arch (the owner's key), kind, output_name, pcc, ..., position; the first
// output_key_columns() are the primary key.
const std::vector<std::string>& output_columns();
size_t output_key_columns();
// The row of result.outputs[position].
std::vector<SqlValue> output_values(const std::string& run_id, const CaseResult& result, size_t position);
// Reads the columns of output_columns() starting at cell `first` (the owner's keys and position are not read).
OutputResult output_from_row(const SqlRow& row, size_t first = 0);

// `runs` columns, run_id first, in the order of run_values().
const std::vector<std::string>& run_columns();
std::vector<SqlValue> run_values(const RunInfo& run);
RunInfo run_from_row(const SqlRow& row, size_t first = 0);

// "a, b, c", or "t.a, t.b, t.c" with a table name.
std::string column_list(const std::vector<std::string>& columns, const std::string& table = "");
// "INSERT INTO table (cols) VALUES (?, ...) ON CONFLICT (key) DO UPDATE SET col = excluded.col, ..."
std::string upsert_sql(const std::string& table, const std::vector<std::string>& columns, size_t key_columns);

// "a,b" <-> {"a","b"} (markers, guidance tags).
std::string join_list(const std::vector<std::string>& items);
std::vector<std::string> split_list(const std::string& text);

}  // namespace meshtest::reports
