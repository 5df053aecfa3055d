// The results store going away in the middle of a run, on a private
// PostgreSQL server (tests/reports/pg_server.sh): restarted 5 s later, every
// case still ends with exactly one stored result and the JUnit file lists
// them all; gone for good, the run exits 6 with its results spooled, and
// --resume stores them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "reports/result_store.h"
#include "tests/common/background_command.h"
#include "tests/common/run_command.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::read_text_file;

const std::vector<std::string> kVariants = {"ok",           "big_output", "throw_load_model", "throw_golden",
                                            "throw_load_inputs", "gate", "flaky"};

std::string id(const std::string& variant) { return "faults/native-" + variant + "-single_device-inference"; }

class StoreOutage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = meshtest::testing::fresh_test_dir("meshtest_outage_",
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir / "config");
    server("start");
    url = read_text_file((dir / "pg").string());
    while (!url.empty() && url.back() == '\n') url.pop_back();
    if (url.rfind("skip:", 0) == 0) GTEST_SKIP() << url;
  }
  void TearDown() override {
    server("stop");
    fs::remove_all(dir);
  }
  void server(const std::string& action) const {
    meshtest::testing::run_command(std::string(MESHTEST_SOURCE_DIR) + "/tests/reports/pg_server.sh " + action + " " +
                                   (dir / "pg").string());
  }
  // The run in the background, in `dir`, its cases held by the gate until open_gate().
  pid_t start_run(const std::string& options) const {
    std::ofstream(dir / "gate") << "closed\n";
    std::string ids;
    for (const std::string& v : kVariants) ids += " " + id(v);
    return meshtest::testing::start_background(
        "cd " + dir.string() + " && export MESHTEST_TEST_GATE=" + (dir / "gate").string() + " && exec " +
        MESHTEST_BINARY + " run -j 1 --models-root " + MESHTEST_ENGINE_FIXTURE_ROOT + " --config-dir config --db '" +
        url + "' --junitxml junit.xml " + options + ids + " > " + log().string() + " 2>&1");
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

  fs::path dir;
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

}  // namespace
