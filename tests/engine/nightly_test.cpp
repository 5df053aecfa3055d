// A scripted nightly, on SQLite and on a private PostgreSQL server
// (tests/reports/pg_server.sh): one run id on two arches x three shards; on
// p150 the shard holding the gated case is killed mid-case (SIGKILL) and
// resumed, another shard never starts. Every case ends recorded per arch or
// reported MISSING, and the exit codes of diff and --resume say so.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "reports/postgres_database.h"
#include "reports/sqlite_database.h"
#include "tests/common/background_command.h"
#include "tests/common/cli_fixture.h"
#include "tests/engine/fault_ids.h"

namespace {

namespace fs = std::filesystem;
using Result = meshtest::testing::CommandResult;

using meshtest::testing::run_meshtest;
using meshtest::testing::faults::id;
using meshtest::testing::faults::ids;

class Nightly : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    fs::create_directories(dir / "config");
    if (GetParam() == "sqlite") {
      url = (dir / "results.db").string();
      return;
    }
    url = meshtest::testing::start_pg_server(dir / "pg");
    if (url.rfind("skip:", 0) == 0) GTEST_SKIP() << url;
  }
  void TearDown() override {
    if (GetParam() == "postgres") meshtest::testing::pg_server("stop", dir / "pg");
  }
  std::string common() const {
    return std::string("--models-root ") + MESHTEST_ENGINE_FIXTURE_ROOT + " --config-dir " + (dir / "config").string() +
           " --db '" + url + "' --timeout 4 --hang-timeout 2 --max-memory 400M";
  }
  // Rows of a query on the store, cells joined by '|'.
  std::vector<std::string> query(const std::string& sql) const {
    std::unique_ptr<meshtest::reports::SqlDatabase> db;
    if (GetParam() == "sqlite") db = std::make_unique<meshtest::reports::SqliteDatabase>(url);
    else db = std::make_unique<meshtest::reports::PostgresDatabase>(url);
    std::vector<std::string> rows;
    for (const meshtest::reports::SqlRow& row : db->query(sql, {})) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? "|" : "") + row.text(i);
      rows.push_back(line);
    }
    return rows;
  }

  const meshtest::testing::TestDir dir{"meshtest_nightly_" + GetParam() + "_"};
  std::string url;
};

// One nightly run id on two arches x 3 shards: on p150 the shard holding the
// gated case is killed mid-case (SIGKILL) and resumed, another never starts.
TEST_P(Nightly, TwoArchesThreeShardsEveryCaseRecordedOrMissing) {
  const std::string cases =
      ids({"ok", "big_output", "exit0", "throw_load_model", "throw_golden", "throw_load_inputs", "gate"});
  ASSERT_EQ(run_meshtest("run -j 2 --run-id base " + common() + cases).status, 1);  // exit0 is an error
  auto shard_run = [&](const std::string& arch, const std::string& shard) {
    return "run -j 2 --run-id nightly --arch " + arch + " --shard " + shard + " " + common() + cases;
  };
  for (int shard = 1; shard <= 3; ++shard) {
    const Result r = run_meshtest(shard_run("n150", std::to_string(shard) + "/3"));
    ASSERT_TRUE(r.status == 0 || r.status == 1) << r.output;
  }
  // Every arch splits the same way: the gated case's shard is known from n150's selection.
  const std::string gated_shard =
      query("SELECT shard FROM run_cases WHERE run_id = 'nightly' AND arch = 'n150' AND test_id = '" +
                      id("gate") + "'").at(0);
  const size_t gated_cases =
      query("SELECT test_id FROM run_cases WHERE run_id = 'nightly' AND arch = 'n150' AND shard = '" +
                      gated_shard + "'").size();
  const std::string never_shard = gated_shard == "3/3" ? "2/3" : "3/3";
  for (int shard = 1; shard <= 3; ++shard) {
    const std::string label = std::to_string(shard) + "/3";
    if (label == never_shard) continue;
    if (label != gated_shard) {
      const Result r = run_meshtest(shard_run("p150", label));
      ASSERT_TRUE(r.status == 0 || r.status == 1) << r.output;
      continue;
    }
    const fs::path gate = dir / "gate", log = dir / "killed_shard.log";
    std::ofstream(gate) << "closed\n";
    // The gated case waits for the kill, however slow the other cases are.
    std::string killed_run = shard_run("p150", label);
    killed_run.replace(killed_run.find("--timeout 4 "), 12, "--timeout 300 ");
    const pid_t pid = meshtest::testing::start_background("export MESHTEST_TEST_GATE=" + gate.string() + "; exec " +
                                                          MESHTEST_BINARY + " " + killed_run + " > " + log.string() +
                                                          " 2>&1");
    ASSERT_GT(pid, 0);
    meshtest::testing::wait_for_finished(log.string(), gated_cases - 1);  // all but the gated case
    kill(pid, SIGKILL);
    meshtest::testing::wait_exit(pid);
    fs::remove(gate);
    const Result resumed =
        run_meshtest("run --resume nightly -j 2 --arch p150 --shard " + label + " " + common() + cases);
    ASSERT_TRUE(resumed.status == 0 || resumed.status == 1) << resumed.output;
    EXPECT_NE(resumed.output.find("1 case(s) on p150"), std::string::npos) << resumed.output;  // only the killed one
  }
  EXPECT_EQ(query("SELECT arch FROM runs WHERE run_id = 'nightly'"), std::vector<std::string>{"n150,p150"});
  EXPECT_EQ(query("SELECT test_id FROM results WHERE run_id = 'nightly' AND arch = 'n150'").size(), 7u);
  // The killed-and-resumed case has exactly one result on p150.
  EXPECT_EQ(query("SELECT attempt FROM results WHERE run_id = 'nightly' AND arch = 'p150' AND test_id = '" +
                            id("gate") + "'").size(),
            1u);
  const auto p150_missing = query("SELECT c.test_id FROM run_cases c LEFT JOIN results r ON "
                                        "r.run_id = c.run_id AND r.arch = c.arch AND r.test_id = c.test_id "
                                        "WHERE c.run_id = 'nightly' AND c.arch = 'p150' AND r.test_id IS NULL ORDER BY c.test_id");
  const auto never_started = query("SELECT test_id FROM run_cases WHERE run_id = 'nightly' AND arch = 'p150' "
                                         "AND shard = '" + never_shard + "' ORDER BY test_id");
  ASSERT_FALSE(never_started.empty());
  EXPECT_EQ(p150_missing, never_started);

  const Result runs = run_meshtest("runs --db '" + url + "'");
  EXPECT_EQ(runs.status, 0) << runs.output;
  EXPECT_NE(runs.output.find("nightly"), std::string::npos) << runs.output;
  const Result diff = run_meshtest("diff base nightly --db '" + url + "'");
  EXPECT_EQ(diff.status, 1) << diff.output;  // n150 unchanged, p150 has missing cases
  EXPECT_NE(diff.output.find("on n150"), std::string::npos) << diff.output;
  EXPECT_NE(diff.output.find("MISSING (" + std::to_string(never_started.size()) + ")"), std::string::npos)
      << diff.output;
  for (const std::string& missing : p150_missing) EXPECT_NE(diff.output.find(missing), std::string::npos);
  const Result n150_only = run_meshtest("diff base nightly --arch n150 --db '" + url + "'");
  EXPECT_EQ(n150_only.status, 0) << n150_only.output;

  // Resuming a finished shard exits with that shard's outcome, not 0.
  const std::string error_shard =
      query("SELECT shard FROM run_cases WHERE run_id = 'nightly' AND arch = 'n150' AND test_id = '" +
                      id("exit0") + "'").at(0);
  const Result resumed =
      run_meshtest("run --resume nightly --arch n150 --shard " + error_shard + " " + common() + cases);
  EXPECT_EQ(resumed.status, 1) << resumed.output;
  EXPECT_NE(resumed.output.find("0 case(s) on n150"), std::string::npos) << resumed.output;
}


INSTANTIATE_TEST_SUITE_P(Stores, Nightly, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
