// PostgreSQL implementation of SqlDatabase through libpq.
#include "reports/postgres_database.h"

#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <regex>

#include "core/error.h"

namespace meshtest::reports {

namespace {

// Owns a PGresult.
struct Result {
  PGresult* res;
  explicit Result(PGresult* r) : res(r) {}
  ~Result() { PQclear(res); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
};

// "postgresql://user:secret@host/db" -> "postgresql://user:***@host/db"
std::string redact(const std::string& url) {
  return std::regex_replace(url, std::regex("(://[^:/@]*):[^@/]*@"), "$1:***@");
}

// SQLite-style `?` placeholders -> $1, $2, ... (our SQL has no `?` in literals).
std::string numbered_placeholders(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?') out += "$" + std::to_string(++n);
    else out += c;
  }
  return out;
}

// Schema text is written with SQLite's types; PostgreSQL's REAL is 32-bit.
std::string postgres_types(const std::string& sql) {
  static const std::regex real("\\bREAL\\b"), integer("\\bINTEGER\\b");
  return std::regex_replace(std::regex_replace(sql, real, "DOUBLE PRECISION"), integer, "BIGINT");
}

// Text parameters for libpq; NULL for nullptr and non-finite numbers.
struct Params {
  std::vector<std::string> text;
  std::vector<const char*> pointers;
  explicit Params(const std::vector<SqlValue>& values) : text(values.size()), pointers(values.size(), nullptr) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (const auto* s = std::get_if<std::string>(&values[i])) {
        text[i] = *s;
      } else if (const auto* n = std::get_if<int64_t>(&values[i])) {
        text[i] = std::to_string(*n);
      } else if (const auto* d = std::get_if<double>(&values[i]); d && std::isfinite(*d)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        text[i] = buf;
      } else {
        continue;
      }
      pointers[i] = text[i].c_str();
    }
  }
  int count() const { return static_cast<int>(pointers.size()); }
};

void check(PGconn* conn, const Result& r, const std::string& context) {
  const ExecStatusType status = PQresultStatus(r.res);
  // An empty query: a migration with nothing to add (a version number kept for another branch's fields).
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY) return;
  const char* state = PQresultErrorField(r.res, PG_DIAG_SQLSTATE);
  const std::string code = state ? state : "";
  std::string msg = context + ": " + (r.res ? PQresultErrorMessage(r.res) : PQerrorMessage(conn));
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  // serialization failure, deadlock, lock not available: retry the transaction.
  // duplicate table/column: a concurrent first open migrated the schema before
  // us; the retry re-reads the version and finds nothing left to do.
  if (code == "40001" || code == "40P01" || code == "55P03" || code == "42P07" || code == "42701") {
    throw SqlBusy(msg);
  }
  // The server went away: libpq's own errors carry no SQLSTATE (the socket
  // closed, EOF); class 08 is a connection exception; 57P01-57P03: shut down, crashed, starting up.
  if (PQstatus(conn) == CONNECTION_BAD || code.empty() || code.rfind("08", 0) == 0 || code.rfind("57P0", 0) == 0) {
    throw SqlConnectionLost(msg);
  }
  throw Error(msg);
}

std::vector<SqlRow> rows_of(const Result& r) {
  std::vector<SqlRow> out;
  const int rows = PQntuples(r.res), cols = PQnfields(r.res);
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    std::vector<std::optional<std::string>> cells(static_cast<size_t>(cols));
    for (int c = 0; c < cols; ++c) {
      if (!PQgetisnull(r.res, i, c)) cells[static_cast<size_t>(c)] = PQgetvalue(r.res, i, c);
    }
    out.emplace_back(std::move(cells));
  }
  return out;
}

class PostgresStatement : public SqlStatement {
 public:
  PostgresStatement(PGconn* conn, std::string name, const std::string& sql, std::string context)
      : conn_(conn), name_(std::move(name)), context_(std::move(context)) {
    check(conn_, Result(PQprepare(conn_, name_.c_str(), numbered_placeholders(sql).c_str(), 0, nullptr)),
          context_ + ": cannot prepare SQL");
  }
  ~PostgresStatement() override { PQclear(PQexec(conn_, ("DEALLOCATE " + name_).c_str())); }
  PostgresStatement(const PostgresStatement&) = delete;
  PostgresStatement& operator=(const PostgresStatement&) = delete;
  void run(const std::vector<SqlValue>& values) override {
    const Params p(values);
    check(conn_, Result(PQexecPrepared(conn_, name_.c_str(), p.count(), p.pointers.data(), nullptr, nullptr, 0)),
          context_ + ": write failed");
  }

 private:
  PGconn* conn_;
  std::string name_, context_;
};

void ignore_notice(void*, const char*) {}

}  // namespace

PostgresDatabase::PostgresDatabase(const std::string& url) : redacted_url_(redact(url)) {
  conn_ = PQconnectdb(url.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn_);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    PQfinish(conn_);
    conn_ = nullptr;
    throw SqlConnectionLost("cannot connect to " + describe() + ": " + msg);
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
}

PostgresDatabase::~PostgresDatabase() { PQfinish(conn_); }

void PostgresDatabase::exec(const std::string& sql) {
  check(conn_, Result(PQexec(conn_, postgres_types(sql).c_str())), describe());
}

void PostgresDatabase::run(const std::string& sql, const std::vector<SqlValue>& params) { query(sql, params); }

std::vector<SqlRow> PostgresDatabase::query(const std::string& sql, const std::vector<SqlValue>& values) {
  const Params p(values);
  Result r(PQexecParams(conn_, numbered_placeholders(sql).c_str(), p.count(), nullptr, p.pointers.data(), nullptr,
                        nullptr, 0));
  check(conn_, r, describe());
  return rows_of(r);
}

std::unique_ptr<SqlStatement> PostgresDatabase::prepare(const std::string& sql) {
  return std::make_unique<PostgresStatement>(conn_, "meshtest_stmt_" + std::to_string(++next_statement_), sql,
                                             describe());
}

void PostgresDatabase::lock_for_migration() { query("SELECT pg_advisory_xact_lock(726273001)", {}); }

int PostgresDatabase::schema_version() {
  // A plain catalog scan, not to_regclass(): its cache can miss a table another session just created.
  if (query("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
            "tablename = 'meshtest_schema'",
            {})
          .at(0)
          .integer(0) == 0) {
    return 0;
  }
  const auto rows = query("SELECT max(version) FROM meshtest_schema", {});
  return rows.empty() ? 0 : static_cast<int>(rows[0].integer(0));
}

void PostgresDatabase::set_schema_version(int version) {
  exec("CREATE TABLE IF NOT EXISTS meshtest_schema (version INTEGER NOT NULL); DELETE FROM meshtest_schema;");
  run("INSERT INTO meshtest_schema (version) VALUES (?)", {static_cast<int64_t>(version)});
}

}  // namespace meshtest::reports
