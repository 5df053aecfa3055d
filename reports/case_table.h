// One row per case of a run as CSV or Markdown (`meshtest report --format
// csv|md`): id, arch, backend, status, outcome, failure class and summary,
// pcc, duration, peak memory; for a spreadsheet, a chat or an issue.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports {

enum class TableFormat { Csv, Markdown };

// The column names, in order.
const std::vector<std::string>& case_table_columns();
// The cells of `result`'s row, as case_table_columns() (pcc: "" when not measured).
std::vector<std::string> case_table_row(const CaseResult& result);

// A header and one row per result, in the given order. CSV: RFC 4180 quoting;
// Markdown: '|' escaped and line breaks as spaces.
void write_case_table(std::ostream& out, const std::vector<const CaseResult*>& results, TableFormat format);

}  // namespace meshtest::reports
