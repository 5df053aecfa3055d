// Rows of `runs`, `results` and `result_outputs`, from the records' field
// descriptions (reports/record_fields.h).
#include "reports/result_rows.h"

#include <algorithm>
#include <climits>
#include <sstream>

#include "reports/record_fields.h"

namespace meshtest::reports {

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"run_id"};
    for (std::string& c : column_names(result_fields())) names.push_back(std::move(c));
    return names;
  }();
  return kNames;
}

const std::vector<std::string>& result_key() {
  static const std::vector<std::string> kKey = [] {
    std::vector<std::string> key = {"run_id"};
    for (std::string& c : key_columns(result_fields())) key.push_back(std::move(c));
    return key;
  }();
  return kKey;
}

std::vector<SqlValue> result_values(const std::string& run_id, const CaseResult& r) {
  std::vector<SqlValue> values = {run_id};
  append_sql_values(result_fields(), r, values);
  return values;
}

CaseResult result_from_row(const SqlRow& row, size_t first) {
  CaseResult r;
  record_from_sql(result_fields(), row, first + 1, r);  // skip run_id
  return r;
}

const std::vector<std::string>& output_columns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = result_key();  // the owner's key
    for (std::string& c : column_names(output_fields())) names.push_back(std::move(c));
    names.push_back("position");
    return names;
  }();
  return kNames;
}

const std::vector<std::string>& output_key() {
  static const std::vector<std::string> kKey = [] {
    std::vector<std::string> key = result_key();
    for (std::string& c : key_columns(output_fields())) key.push_back(std::move(c));
    return key;
  }();
  return kKey;
}

std::vector<SqlValue> output_values(const std::string& run_id, const CaseResult& r, size_t position) {
  std::vector<SqlValue> values = {run_id};
  for (const Field<CaseResult>& f : result_fields()) {  // the owner's key, in key_columns order
    if (is_key_at(f, INT_MAX)) values.push_back(field_to_sql(f.get(r)));
  }
  append_sql_values(output_fields(), r.outputs.at(position), values);
  values.emplace_back(static_cast<int64_t>(position));
  return values;
}

OutputResult output_from_row(const SqlRow& row, size_t first) {
  OutputResult o;
  record_from_sql(output_fields(), row, first + result_key().size(), o);  // skip the owner's key
  return o;
}

std::string result_key_text(const CaseResult& r) {
  std::string text;
  for (const Field<CaseResult>& f : result_fields()) {
    if (is_key_at(f, INT_MAX)) text += field_to_json(f.get(r)).dump() + "\n";
  }
  return text;
}

std::string output_owner_key_text(const SqlRow& row, size_t first) {
  CaseResult owner;
  size_t cell = first + 1;  // after run_id
  for (const Field<CaseResult>& f : result_fields()) {
    if (!is_key_at(f, INT_MAX)) continue;
    if (auto value = field_from_sql(f.type, row, cell)) f.set(owner, std::move(*value));
    ++cell;
  }
  return result_key_text(owner);
}

const std::vector<std::string>& run_columns() {
  static const std::vector<std::string> kNames = column_names(run_fields());
  return kNames;
}

std::vector<SqlValue> run_values(const RunInfo& run) {
  std::vector<SqlValue> values;
  append_sql_values(run_fields(), run, values);
  return values;
}

RunInfo run_from_row(const SqlRow& row, size_t first) {
  RunInfo run;
  record_from_sql(run_fields(), row, first, run);
  return run;
}

std::string column_list(const std::vector<std::string>& columns, const std::string& table) {
  std::string out;
  for (const std::string& c : columns) out += (out.empty() ? "" : ", ") + (table.empty() ? c : table + "." + c);
  return out;
}

std::string upsert_sql(const std::string& table, const std::vector<std::string>& cols,
                       const std::vector<std::string>& key) {
  std::string names, marks, update;
  for (size_t i = 0; i < cols.size(); ++i) {
    names += (i ? ", " : "") + cols[i];
    marks += i ? ",?" : "?";
    if (std::find(key.begin(), key.end(), cols[i]) == key.end()) {
      update += (update.empty() ? "" : ", ") + cols[i] + " = excluded." + cols[i];
    }
  }
  return "INSERT INTO " + table + " (" + names + ") VALUES (" + marks + ") ON CONFLICT (" + column_list(key) +
         ") DO UPDATE SET " + update;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace meshtest::reports
