// CSV and Markdown rows of results (see case_table.h).
#include "reports/case_table.h"

#include <cmath>
#include <cstdio>

namespace meshtest::reports {

namespace {

std::string fixed(double value, const char* format) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

void write_row(std::ostream& out, const std::vector<std::string>& cells, TableFormat format) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (format == TableFormat::Csv) {
      out << (i ? "," : "") << csv_cell(cells[i]);
    } else {
      out << "| " << markdown_cell(cells[i]) << " ";
    }
  }
  out << (format == TableFormat::Markdown ? "|\n" : "\n");
}

}  // namespace

const std::vector<std::string>& case_table_columns() {
  static const std::vector<std::string> columns = {
      "id",  "arch",       "backend",             "status",                "outcome", "failure_class", "failure_summary",
      "pcc", "duration_s", "peak_host_rss_bytes", "peak_device_dram_bytes"};
  return columns;
}

std::vector<std::string> case_table_row(const CaseResult& r) {
  return {r.test_id,
          r.arch,
          r.backend,
          r.status,
          std::string(outcome_name(r.outcome)),
          r.failure_class,
          r.failure_summary,
          std::isfinite(r.pcc) ? fixed(r.pcc, "%.6f") : "",
          fixed(r.wall_seconds, "%.3f"),
          std::to_string(r.peak_host_rss_bytes),
          std::to_string(r.peak_device_dram_bytes)};
}

void write_case_table(std::ostream& out, const std::vector<const CaseResult*>& results, TableFormat format) {
  write_row(out, case_table_columns(), format);
  if (format == TableFormat::Markdown) {
    out << "|";
    for (size_t i = 0; i < case_table_columns().size(); ++i) out << " --- |";
    out << "\n";
  }
  for (const CaseResult* r : results) write_row(out, case_table_row(*r), format);
}

}  // namespace meshtest::reports
