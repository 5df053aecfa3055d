// The mapping between the result record and rows of the `results` and
// `result_outputs` tables, defined once for writing and reading.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"
#include "reports/sql_database.h"

namespace meshtest::reports {

// Column names of `results` in the order of result_values(), run_id first.
const std::vector<std::string>& result_columns();
std::vector<SqlValue> result_values(const std::string& run_id, const CaseResult& result);
// Reads the columns of result_columns() starting at cell `first` (run_id is not read).
CaseResult result_from_row(const SqlRow& row, size_t first = 0);

const std::vector<std::string>& output_columns();  // run_id, test_id, attempt, kind, output_name, position, pcc, ...
// The row of result.outputs[position].
std::vector<SqlValue> output_values(const std::string& run_id, const CaseResult& result, size_t position);

// "INSERT INTO table (cols) VALUES (?, ...) ON CONFLICT (key) DO UPDATE SET col = excluded.col, ..."
std::string upsert_sql(const std::string& table, const std::vector<std::string>& columns, size_t key_columns);

// "a,b" <-> {"a","b"} (markers, guidance tags).
std::string join_list(const std::vector<std::string>& items);
std::vector<std::string> split_list(const std::string& text);

}  // namespace meshtest::reports
