// The results store going away in the middle of a run, on a private
// PostgreSQL server (tests/reports/pg_server.sh): restarted 5 s later, every
// case still ends with exactly one stored result and the JUnit file lists
// them all; gone for good, the run exits 6 with its results spooled, and
// --resume stores them. And the shared queue (--queue): three processes, one
// SIGKILLed mid-case, every case ends with exactly one result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <signal.h>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "reports/postgres_database.h"
#include "reports/result_store.h"
#include "reports/work_queue.h"
#include "tests/common/background_command.h"
#include "tests/common/cli_fixture.h"
#include "tests/engine/fault_ids.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::read_text_file;

const std::vector<std::string> kVariants = {"ok",           "big_output", "throw_load_model", "throw_golden",
                                            "throw_load_inputs", "gate", "flaky"};

using meshtest::testing::faults::id;

class StoreOutage : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir / "config");
    url = meshtest::testing::start_pg_server(dir / "pg");
    if (url.rfind("skip:", 0) == 0) GTEST_SKIP() << url;
  }
  void TearDown() override { server("stop"); }
  void server(const std::string& action) const { meshtest::testing::pg_server(action, dir / "pg"); }
  // The run in the background, in `dir`, its cases held by the gate until open_gate().
  pid_t start_run(const std::string& options, const std::string& log_name = "run.log") const {
    std::ofstream(dir / "gate") << "closed\n";
    std::string ids;
    for (const std::string& v : kVariants) ids += " " + id(v);
    return meshtest::testing::start_background(
        "cd " + dir.string() + " && export MESHTEST_TEST_GATE=" + (dir / "gate").string() + " && exec " +
        MESHTEST_BINARY + " run -j 1 --models-root " + MESHTEST_ENGINE_FIXTURE_ROOT + " --config-dir config --db '" +
        url + "' --junitxml junit.xml " + options + ids + " > " + (dir / log_name).string() + " 2>&1");
  }
  void open_gate() const { fs::remove(dir / "gate"); }
  fs::path log() const { return dir / "run.log"; }
  // test id -> how many results the store has for it, over every run.
  std::map<std::string, int> stored() const {
    std::map<std::string, int> out;
    auto store = meshtest::reports::open_store(url);
    for (const auto& run : store->recent_runs(10)) {
      for (const auto& r : store->run_results(run.run_id)) ++out[r.test_id];
    }
    return out;
  }
  void expect_one_result_per_case() const {
    const auto got = stored();
    EXPECT_EQ(got.size(), kVariants.size()) << read_text_file(log().string());
    for (const std::string& v : kVariants) EXPECT_EQ(got.count(id(v)) ? got.at(id(v)) : 0, 1) << v;
  }

  const meshtest::testing::TestDir dir{"meshtest_outage_"};
  std::string url;
};

// Cases run one at a time in id order; the gate case holds the run after two.
TEST_F(StoreOutage, ServerRestartedMidRunLosesNoResult) {
  const pid_t pid = start_run("");
  meshtest::testing::wait_for_finished(log().string(), 2);
  server("crash");  // immediate stop
  open_gate();      // the other cases finish while the server is down
  std::this_thread::sleep_for(std::chrono::seconds(5));
  server("restart");
  EXPECT_EQ(meshtest::testing::wait_exit(pid), 0) << read_text_file(log().string());
  expect_one_result_per_case();
  EXPECT_EQ(meshtest::testing::count_occurrences(read_text_file((dir / "junit.xml").string()), "<testcase "), kVariants.size());
  auto runs = meshtest::reports::open_store(url)->recent_runs(10);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].finished_at.empty());
  EXPECT_FALSE(fs::exists(dir / ("meshtest-spool-" + runs[0].run_id + ".jsonl"))) << "the spool is emptied";
}

TEST_F(StoreOutage, StoreGoneForGoodEndsTheRunWithExit6AndResumeStoresTheSpool) {
  const pid_t pid = start_run("--store-retry-timeout 2");
  meshtest::testing::wait_for_finished(log().string(), 2);
  server("crash");
  open_gate();
  EXPECT_EQ(meshtest::testing::wait_exit(pid), 6);
  const std::string output = read_text_file(log().string());
  EXPECT_NE(output.find("the results store stayed unreachable for "), std::string::npos) << output;
  EXPECT_EQ(output.find("internal error"), std::string::npos) << output;
  const size_t at = output.find("run the same command with --resume ");
  ASSERT_NE(at, std::string::npos) << output;
  const std::string run_id = output.substr(at + 35, output.find(':', at + 35) - at - 35);
  const fs::path spool = dir / ("meshtest-spool-" + run_id + ".jsonl");
  EXPECT_EQ(meshtest::testing::count_occurrences(read_text_file(spool.string()), "\n"), kVariants.size() - 2) << output;
  EXPECT_EQ(meshtest::testing::count_occurrences(read_text_file((dir / "junit.xml").string()), "<testcase "), kVariants.size());

  server("restart");
  const pid_t resumed = start_run("--resume " + run_id);
  EXPECT_EQ(meshtest::testing::wait_exit(resumed), 0) << read_text_file(log().string());
  EXPECT_NE(read_text_file(log().string()).find("stored 5 result(s) left in the spool"), std::string::npos)
      << read_text_file(log().string());
  expect_one_result_per_case();
  EXPECT_FALSE(fs::exists(spool));
}

// Three processes on one queue; the one running the gated case is killed
// (SIGKILL) while it runs; after its lease expires another takes the case over.
TEST_F(StoreOutage, SharedQueueGivesEveryCaseExactlyOneResultWhenAProcessDies) {
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    pids.push_back(start_run("--queue '" + url + "' --queue-lease 2 --run-id nightly-q",
                             "run" + std::to_string(i) + ".log"));
  }
  const meshtest::reports::WorkQueue created_here_too(url);  // the table, before the processes make it
  meshtest::reports::PostgresDatabase db(url);
  std::string owner;
  for (int i = 0; i < 3000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto leased = db.query("SELECT owner FROM meshtest_queue WHERE state = 'leased'", {});
    const auto done = db.query("SELECT count(*) FROM meshtest_queue WHERE state = 'done'", {});
    if (leased.size() == 1 && done.at(0).integer(0) == static_cast<int64_t>(kVariants.size()) - 1) {
      owner = leased[0].text(0);
      break;
    }
  }
  ASSERT_FALSE(owner.empty()) << "the gated case never became the only one left";
  const pid_t holder = std::stoi(owner.substr(owner.rfind(':') + 1));
  ASSERT_NE(std::find(pids.begin(), pids.end(), holder), pids.end()) << owner;
  kill(holder, SIGKILL);
  EXPECT_EQ(meshtest::testing::wait_exit(holder), 128 + SIGKILL);
  open_gate();
  for (pid_t pid : pids) {
    if (pid == holder) continue;
    EXPECT_EQ(meshtest::testing::wait_exit(pid), 0);
  }
  expect_one_result_per_case();
  EXPECT_EQ(db.query("SELECT count(*) FROM meshtest_queue WHERE state <> 'done'", {}).at(0).integer(0), 0);
  const auto runs = meshtest::reports::open_store(url)->recent_runs(10);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_id, "nightly-q");
  EXPECT_FALSE(runs[0].finished_at.empty());
}

}  // namespace
