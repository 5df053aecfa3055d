// The mapping between the records (CaseResult, its outputs, RunInfo) and rows
// of the `results`, `result_outputs` and `runs` tables, derived from the
// field descriptions in reports/record_fields.h.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"
#include "reports/sql_database.h"

namespace meshtest::reports {

// Column names of `results` in the order of result_values(), run_id first.
const std::vector<std::string>& result_columns();
// The primary key of `results`: run_id, test_id, attempt, arch, backend.
const std::vector<std::string>& result_key();
std::vector<SqlValue> result_values(const std::string& run_id, const CaseResult& result);
// Reads the columns of result_columns() starting at cell `first` (run_id is not read).
CaseResult result_from_row(const SqlRow& row, size_t first = 0);

// result_key() (the owner's key), kind, output_name, pcc, ..., position.
const std::vector<std::string>& output_columns();
// The primary key of `result_outputs`: result_key(), kind, output_name (its first columns).
const std::vector<std::string>& output_key();
// The row of result.outputs[position].
std::vector<SqlValue> output_values(const std::string& run_id, const CaseResult& result, size_t position);
// Reads the columns of output_columns() starting at cell `first` (the owner's keys and position are not read).
OutputResult output_from_row(const SqlRow& row, size_t first = 0);
// The result's key without run_id, as one text (to match outputs with their result) ...
std::string result_key_text(const CaseResult& result);
// ... and the same text of the owner of an output row read from cell `first` on.
std::string output_owner_key_text(const SqlRow& row, size_t first = 0);

// `runs` columns, run_id first, in the order of run_values().
const std::vector<std::string>& run_columns();
std::vector<SqlValue> run_values(const RunInfo& run);
RunInfo run_from_row(const SqlRow& row, size_t first = 0);

// "a, b, c", or "t.a, t.b, t.c" with a table name.
std::string column_list(const std::vector<std::string>& columns, const std::string& table = "");
// "INSERT INTO table (cols) VALUES (?, ...) ON CONFLICT (key) DO UPDATE SET col = excluded.col, ..."
// (`key`: columns among `columns`).
std::string upsert_sql(const std::string& table, const std::vector<std::string>& columns,
                       const std::vector<std::string>& key);

// "a,b" <-> {"a","b"} (markers, guidance tags).
std::string join_list(const std::vector<std::string>& items);
std::vector<std::string> split_list(const std::string& text);

}  // namespace meshtest::reports
