// One table of columns, each with how to write and read its record field.
#include "reports/result_rows.h"

#include <functional>
#include <sstream>

#include "reports/guidance.h"

namespace meshtest::reports {

namespace {

struct Column {
  std::string name;
  std::function<SqlValue(const CaseResult&)> get;
  std::function<void(CaseResult&, const SqlRow&, size_t)> set;
};

Column text(std::string name, std::string CaseResult::*field) {
  return {std::move(name), [field](const CaseResult& r) -> SqlValue { return r.*field; },
          [field](CaseResult& r, const SqlRow& row, size_t i) { r.*field = row.text(i); }};
}

Column real(std::string name, double CaseResult::*field) {
  return {std::move(name), [field](const CaseResult& r) -> SqlValue { return r.*field; },
          [field](CaseResult& r, const SqlRow& row, size_t i) { r.*field = row.real(i); }};
}

Column seconds(std::string name, double PhaseSeconds::*field) {
  return {std::move(name), [field](const CaseResult& r) -> SqlValue { return r.seconds.*field; },
          [field](CaseResult& r, const SqlRow& row, size_t i) {
            const double v = row.real(i);
            r.seconds.*field = std::isnan(v) ? 0 : v;
          }};
}

template <typename T>
Column integer(std::string name, T CaseResult::*field) {
  return {std::move(name), [field](const CaseResult& r) -> SqlValue { return static_cast<int64_t>(r.*field); },
          [field](CaseResult& r, const SqlRow& row, size_t i) { r.*field = static_cast<T>(row.integer(i)); }};
}

Column list(std::string name, std::vector<std::string> CaseResult::*field) {
  return {std::move(name), [field](const CaseResult& r) -> SqlValue { return join_list(r.*field); },
          [field](CaseResult& r, const SqlRow& row, size_t i) { r.*field = split_list(row.text(i)); }};
}

// A list of integers as "1,2,3".
Column integers(std::string name, std::vector<int64_t> CaseResult::*field) {
  return {std::move(name),
          [field](const CaseResult& r) -> SqlValue {
            std::vector<std::string> items;
            for (int64_t v : r.*field) items.push_back(std::to_string(v));
            return join_list(items);
          },
          [field](CaseResult& r, const SqlRow& row, size_t i) {
            (r.*field).clear();
            for (const std::string& item : split_list(row.text(i))) (r.*field).push_back(std::stoll(item));
          }};
}

FailureKind parse_failure_kind(const std::string& name) {
  for (FailureKind k : {FailureKind::Exception, FailureKind::Crash, FailureKind::Hang, FailureKind::Timeout,
                        FailureKind::Oom}) {
    if (failure_kind_name(k) == name) return k;
  }
  return FailureKind::None;
}

const std::vector<Column>& columns() {
  static const std::vector<Column> kColumns = {
      text("test_id", &CaseResult::test_id),
      integer("attempt", &CaseResult::attempt),
      text("loader_dir", &CaseResult::loader_dir),
      text("model", &CaseResult::model),
      text("variant", &CaseResult::variant),
      text("parallelism", &CaseResult::parallelism),
      text("run_mode", &CaseResult::run_mode),
      text("model_group", &CaseResult::group),
      text("task", &CaseResult::task),
      text("source", &CaseResult::source),
      text("framework", &CaseResult::framework),
      text("arch", &CaseResult::arch),
      text("mesh", &CaseResult::mesh),
      list("markers", &CaseResult::markers),
      text("status", &CaseResult::status),
      text("reason", &CaseResult::reason),
      {"outcome", [](const CaseResult& r) -> SqlValue { return std::string(outcome_name(r.outcome)); },
       [](CaseResult& r, const SqlRow& row, size_t i) { r.outcome = parse_outcome(row.text(i)); }},
      text("bringup_status", &CaseResult::bringup_status),
      text("phase", &CaseResult::phase),
      {"failure_kind", [](const CaseResult& r) -> SqlValue { return std::string(failure_kind_name(r.failure_kind)); },
       [](CaseResult& r, const SqlRow& row, size_t i) { r.failure_kind = parse_failure_kind(row.text(i)); }},
      text("error_message", &CaseResult::error_message),
      real("pcc", &CaseResult::pcc),
      real("atol", &CaseResult::atol),
      real("rel_l2", &CaseResult::rel_l2),
      real("required_pcc", &CaseResult::required_pcc),
      real("required_atol", &CaseResult::required_atol),
      integer("assert_pcc", &CaseResult::assert_pcc),
      integer("assert_atol", &CaseResult::assert_atol),
      integer("assert_allclose", &CaseResult::assert_allclose),
      seconds("load_seconds", &PhaseSeconds::load),
      seconds("golden_seconds", &PhaseSeconds::golden),
      seconds("compile_seconds", &PhaseSeconds::compile),
      seconds("execute_seconds", &PhaseSeconds::execute),
      seconds("compare_seconds", &PhaseSeconds::compare),
      real("wall_seconds", &CaseResult::wall_seconds),
      integer("peak_host_rss_bytes", &CaseResult::peak_host_rss_bytes),
      integer("peak_device_dram_bytes", &CaseResult::peak_device_dram_bytes),
      integer("peak_device_l1_bytes", &CaseResult::peak_device_l1_bytes),
      integer("device_ops", &CaseResult::device_ops),
      integer("compile_cache_hit", &CaseResult::compile_cache_hit),
      text("started_at", &CaseResult::started_at),
      text("finished_at", &CaseResult::finished_at),
      text("captured_output", &CaseResult::captured_output),
      text("compile_stats", &CaseResult::compile_stats),
      integers("per_chip_peak_dram_bytes", &CaseResult::per_chip_peak_dram_bytes),
      integer("collectives_executed", &CaseResult::collectives_executed),
      integer("bytes_moved_between_chips", &CaseResult::bytes_moved_between_chips),
      integer("device_bytes_leaked", &CaseResult::device_bytes_leaked),
      text("sharding_fallbacks", &CaseResult::sharding_fallbacks),
      text("execution_pass", &CaseResult::execution_pass),
      {"guidance", [](const CaseResult& r) -> SqlValue { return join_list(guidance_for(r)); },
       [](CaseResult& r, const SqlRow& row, size_t i) { r.guidance = split_list(row.text(i)); }},
  };
  return kColumns;
}

}  // namespace

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"run_id"};
    for (const Column& c : columns()) names.push_back(c.name);
    return names;
  }();
  return kNames;
}

std::vector<SqlValue> result_values(const std::string& run_id, const CaseResult& r) {
  std::vector<SqlValue> values;
  values.reserve(columns().size() + 1);
  values.emplace_back(run_id);
  for (const Column& c : columns()) values.push_back(c.get(r));
  return values;
}

CaseResult result_from_row(const SqlRow& row, size_t first) {
  CaseResult r;
  size_t i = first + 1;  // skip run_id
  for (const Column& c : columns()) c.set(r, row, i++);
  return r;
}

const std::vector<std::string>& output_columns() {
  static const std::vector<std::string> kNames = {"run_id", "test_id", "attempt", "kind",   "output_name",
                                                  "position", "pcc",   "atol",    "rel_l2", "passed"};
  return kNames;
}

std::vector<SqlValue> output_values(const std::string& run_id, const CaseResult& r, size_t position) {
  const OutputResult& o = r.outputs.at(position);
  return {run_id, r.test_id, static_cast<int64_t>(r.attempt), o.kind, o.name, static_cast<int64_t>(position),
          o.pcc, o.atol, o.rel_l2, static_cast<int64_t>(o.passed)};
}

std::string upsert_sql(const std::string& table, const std::vector<std::string>& cols, size_t key_columns) {
  std::string names, marks, key, update;
  for (size_t i = 0; i < cols.size(); ++i) {
    names += (i ? ", " : "") + cols[i];
    marks += i ? ",?" : "?";
    if (i < key_columns) key += (i ? ", " : "") + cols[i];
    else update += (update.empty() ? "" : ", ") + cols[i] + " = excluded." + cols[i];
  }
  return "INSERT INTO " + table + " (" + names + ") VALUES (" + marks + ") ON CONFLICT (" + key + ") DO UPDATE SET " +
         update;
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
