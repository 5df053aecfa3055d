// WorkQueue: the meshtest_queue table and its claim/renew/complete statements.
#include "reports/work_queue.h"

#include "core/error.h"
#include "reports/result_store.h"
#ifdef MESHTEST_HAVE_POSTGRES
#include "reports/postgres_database.h"
#endif

namespace meshtest::reports {

namespace {

const char* const kCreateTable =
    "CREATE TABLE IF NOT EXISTS meshtest_queue (\n"
    "  run_id TEXT NOT NULL, test_id TEXT NOT NULL, priority DOUBLE PRECISION NOT NULL,\n"
    "  state TEXT NOT NULL DEFAULT 'pending',  -- pending | leased | done\n"
    "  owner TEXT, lease_until TIMESTAMPTZ,\n"
    "  PRIMARY KEY (run_id, test_id))";

const char* const kLease = "now() + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 second'";

}  // namespace

WorkQueue::WorkQueue(const std::string& url) {
  if (!is_postgres_url(url)) throw Error("--queue '" + url + "': the shared queue needs a postgresql:// URL");
#ifdef MESHTEST_HAVE_POSTGRES
  db_ = std::make_unique<PostgresDatabase>(url);
  with_transaction(*db_, [&] {
    db_->lock_for_migration();  // concurrent first users create the table once
    db_->exec(kCreateTable);
  });
#else
  throw Error("this meshtest was built without libpq: --queue is unavailable");
#endif
}

void WorkQueue::add(const std::string& run_id, const std::vector<std::pair<std::string, double>>& cases) {
  with_transaction(*db_, [&] {
    auto insert = db_->prepare(
        "INSERT INTO meshtest_queue (run_id, test_id, priority) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
    for (const auto& [test_id, priority] : cases) insert->run({run_id, test_id, priority});
  });
}

std::optional<std::string> WorkQueue::claim(const std::string& run_id, const std::string& owner,
                                            double lease_seconds) {
  const auto rows = db_->query(std::string("UPDATE meshtest_queue SET state = 'leased', owner = ?, lease_until = ") +
                                   kLease +
                                   " WHERE (run_id, test_id) = (SELECT run_id, test_id FROM meshtest_queue"
                                   "  WHERE run_id = ? AND (state = 'pending' OR (state = 'leased' AND "
                                   "lease_until < now()))"
                                   "  ORDER BY priority DESC, test_id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                                   " RETURNING test_id",
                               {owner, lease_seconds, run_id});
  if (rows.empty()) return std::nullopt;
  return rows[0].text(0);
}

void WorkQueue::renew(const std::string& run_id, const std::string& owner, double lease_seconds) {
  db_->run(std::string("UPDATE meshtest_queue SET lease_until = ") + kLease +
               " WHERE run_id = ? AND owner = ? AND state = 'leased'",
           {lease_seconds, run_id, owner});
}

void WorkQueue::complete(const std::string& run_id, const std::string& test_id) {
  db_->run("UPDATE meshtest_queue SET state = 'done', lease_until = NULL WHERE run_id = ? AND test_id = ?",
           {run_id, test_id});
}

size_t WorkQueue::unfinished(const std::string& run_id) {
  return static_cast<size_t>(
      db_->query("SELECT count(*) FROM meshtest_queue WHERE run_id = ? AND state <> 'done'", {run_id}).at(0).integer(0));
}

}  // namespace meshtest::reports
