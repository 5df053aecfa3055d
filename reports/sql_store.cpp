// SqlStore: runs, results and outputs through portable SQL.
#include "reports/sql_store.h"

#include <algorithm>
#include <set>

#include "reports/result_rows.h"
#include "reports/store_schema.h"

namespace meshtest::reports {

namespace {

std::string results_select() {
  return "SELECT " + column_list(result_columns(), "results") + " FROM results ";
}

}  // namespace

SqlStore::SqlStore(std::unique_ptr<SqlDatabase> db) : db_(std::move(db)) { migrate_schema(*db_); }

void SqlStore::begin_run(const RunInfo& run) {
  std::vector<SqlValue> values = run_values(run);
  const auto& columns = run_columns();
  values[std::find(columns.begin(), columns.end(), "finished_at") - columns.begin()] = nullptr;  // until finish_run
  std::string marks;
  for (size_t i = 0; i < columns.size(); ++i) marks += i ? ",?" : "?";
  with_transaction(*db_, [&] {
    db_->run("INSERT INTO runs (" + column_list(columns) + ") VALUES (" + marks +
                 ") ON CONFLICT (run_id) DO UPDATE SET finished_at = NULL",
             values);
    // Joining a run: its arches become the union (inside the write transaction, so shards starting together agree).
    const auto rows = db_->query("SELECT arch FROM runs WHERE run_id = ?", {run.run_id});
    std::set<std::string> arches;
    for (const std::string& a : split_list(rows.empty() ? "" : rows[0].text(0))) arches.insert(a);
    for (const std::string& a : split_list(run.arch)) arches.insert(a);
    db_->run("UPDATE runs SET arch = ? WHERE run_id = ?",
             {join_list(std::vector<std::string>(arches.begin(), arches.end())), run.run_id});
  });
}

void SqlStore::record_selection(const std::string& run_id, const std::string& arch, const std::string& shard,
                                const std::vector<std::string>& test_ids) {
  with_transaction(*db_, [&] {
    auto insert = db_->prepare(
        "INSERT INTO run_cases (run_id, arch, test_id, shard) VALUES (?,?,?,?) "
        "ON CONFLICT (run_id, arch, test_id) DO UPDATE SET shard = excluded.shard");
    for (const std::string& id : test_ids) insert->run({run_id, arch, id, shard});
  });
}

std::vector<SelectedCase> SqlStore::run_selection(const std::string& run_id) {
  std::vector<SelectedCase> out;
  for (const SqlRow& row : db_->query(
           "SELECT arch, test_id, shard, not_run_reason FROM run_cases WHERE run_id = ? ORDER BY arch, test_id",
           {run_id})) {
    out.push_back({row.text(0), row.text(1), row.text(2), row.text(3)});
  }
  return out;
}

void SqlStore::mark_not_run(const std::string& run_id, const std::string& arch,
                            const std::vector<std::string>& test_ids, const std::string& reason) {
  with_transaction(*db_, [&] {
    auto update =
        db_->prepare("UPDATE run_cases SET not_run_reason = ? WHERE run_id = ? AND arch = ? AND test_id = ?");
    for (const std::string& id : test_ids) update->run({reason, run_id, arch, id});
  });
}

void SqlStore::finish_run(const std::string& run_id, const std::string& finished_at) {
  with_transaction(*db_,
                   [&] { db_->run("UPDATE runs SET finished_at = ? WHERE run_id = ?", {finished_at, run_id}); });
}

void SqlStore::mark_interrupted(const std::string& run_id, const std::string& at, const std::string& by) {
  with_transaction(*db_, [&] {
    db_->run("UPDATE runs SET interrupted_at = ?, interrupted_by = ? WHERE run_id = ?", {at, by, run_id});
  });
}

void SqlStore::record(const std::string& run_id, const CaseResult& result) { record_batch(run_id, {result}); }

void SqlStore::record_batch(const std::string& run_id, const std::vector<CaseResult>& results) {
  static const std::string kResultSql = upsert_sql("results", result_columns(), result_key());
  static const std::string kOutputSql = upsert_sql("result_outputs", output_columns(), output_key());
  with_transaction(*db_, [&] {
    auto insert_result = db_->prepare(kResultSql);
    std::unique_ptr<SqlStatement> insert_output;
    for (const CaseResult& r : results) {
      insert_result->run(result_values(run_id, r));
      for (size_t i = 0; i < r.outputs.size(); ++i) {
        if (!insert_output) insert_output = db_->prepare(kOutputSql);
        insert_output->run(output_values(run_id, r, i));
      }
    }
  });
}

int SqlStore::schema_version() { return db_->schema_version(); }

std::optional<std::string> SqlStore::last_unfinished_run() {
  auto rows = db_->query(
      "SELECT run_id FROM runs WHERE finished_at IS NULL ORDER BY started_at DESC, run_id DESC LIMIT 1", {});
  if (rows.empty()) return std::nullopt;
  return rows[0].text(0);
}

std::map<std::string, LastAttempt> SqlStore::last_attempts(const std::string& run_id, const std::string& arch) {
  std::map<std::string, LastAttempt> out;
  for (const SqlRow& row : db_->query("SELECT test_id, attempt, outcome FROM results WHERE run_id = ? AND arch = ? "
                                      "ORDER BY test_id, attempt",
                                      {run_id, arch})) {
    out[row.text(0)] = {static_cast<int>(row.integer(1)), parse_outcome(row.text(2))};  // the last row wins
  }
  return out;
}

std::map<std::string, CaseHistory> SqlStore::case_history(int max_runs, const std::string& started_before,
                                                          const HistoryScope& scope) {
  // Per case, the wall times and peak RSS of its `max_runs` most recent attempts (in `scope`).
  std::vector<std::string> conditions;
  std::vector<SqlValue> params;
  if (!started_before.empty()) {
    conditions.emplace_back("started_at < ?");
    params.emplace_back(started_before);
  }
  if (!scope.arch.empty()) {
    conditions.emplace_back("arch = ?");
    params.emplace_back(scope.arch);
  }
  if (!scope.backend.empty()) {
    conditions.emplace_back("(backend = ? OR COALESCE(backend, '') = '')");
    params.emplace_back(scope.backend);
  }
  std::string cutoff;
  for (const std::string& c : conditions) cutoff += (cutoff.empty() ? " WHERE " : " AND ") + c;
  params.emplace_back(static_cast<int64_t>(max_runs));
  const auto rows = db_->query(
      "SELECT test_id, wall_seconds, peak_host_rss_bytes FROM ("
      "  SELECT test_id, wall_seconds, peak_host_rss_bytes,"
      "         ROW_NUMBER() OVER (PARTITION BY test_id ORDER BY started_at DESC) AS n"
      "  FROM results" + cutoff + ") AS recent WHERE n <= ? ORDER BY test_id",
      params);
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, CaseHistory> out;
  for (const SqlRow& row : rows) {
    const std::string id = row.text(0);
    const double t = row.real(1);
    times[id].push_back(std::isnan(t) ? 0 : t);
    CaseHistory& h = out[id];
    h.max_peak_host_rss_bytes = std::max<int64_t>(h.max_peak_host_rss_bytes, row.integer(2));
    ++h.runs;
  }
  for (auto& [id, t] : times) {
    std::sort(t.begin(), t.end());
    out[id].median_wall_seconds = t[t.size() / 2];
  }
  return out;
}

std::vector<RunInfo> SqlStore::runs_where(const std::string& where_sql, const std::vector<SqlValue>& params) {
  std::vector<RunInfo> runs;
  for (const SqlRow& row : db_->query("SELECT " + column_list(run_columns()) + " FROM runs " + where_sql, params)) {
    runs.push_back(run_from_row(row));
  }
  return runs;
}

std::vector<RunInfo> SqlStore::recent_runs(int limit) {
  return runs_where("ORDER BY started_at DESC, run_id DESC LIMIT ?", {static_cast<int64_t>(limit)});
}

std::optional<RunInfo> SqlStore::find_run(const std::string& run_id) {
  auto runs = runs_where("WHERE run_id = ?", {run_id});
  if (runs.empty()) return std::nullopt;
  return runs[0];
}

void SqlStore::attach_outputs(const std::string& run_id, std::vector<CaseResult>& results) {
  std::map<std::string, CaseResult*> by_key;
  for (CaseResult& r : results) by_key[result_key_text(r)] = &r;
  const std::vector<std::string> owner(result_key().begin() + 1, result_key().end());  // after run_id
  const auto rows = db_->query("SELECT " + column_list(output_columns()) + " FROM result_outputs WHERE run_id = ? " +
                                   "ORDER BY " + column_list(owner) + ", position, kind, output_name",
                               {run_id});
  for (const SqlRow& row : rows) {
    auto it = by_key.find(output_owner_key_text(row));
    if (it == by_key.end()) continue;
    it->second->outputs.push_back(output_from_row(row));
  }
}

std::vector<CaseResult> SqlStore::run_results(const std::string& run_id) {
  std::vector<CaseResult> results;
  for (const SqlRow& row : db_->query(results_select() + "WHERE run_id = ? ORDER BY test_id, arch, backend, attempt", {run_id})) {
    results.push_back(result_from_row(row));
  }
  attach_outputs(run_id, results);
  return results;
}

std::vector<StoredResult> SqlStore::test_history(const std::string& test_id, int limit) {
  std::vector<StoredResult> out;
  const auto rows = db_->query(results_select() +
                                   "JOIN runs USING (run_id) WHERE test_id = ? "
                                   "ORDER BY runs.started_at DESC, run_id DESC, attempt DESC LIMIT ?",
                               {test_id, static_cast<int64_t>(limit)});
  for (const SqlRow& row : rows) out.push_back({row.text(0), result_from_row(row)});
  return out;
}

}  // namespace meshtest::reports
