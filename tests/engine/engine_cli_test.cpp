// Whole-binary tests of the execution engine on the fault-injection loader:
// every way a model can go wrong yields its phase and failure kind while the
// other cases pass; SIGKILL + --resume gives exactly one result per case;
// SIGTERM writes the reports, marks the run interrupted and exits 143;
// reruns record flaky cases; shards cover every case once and merge into one run.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/background_command.h"
#include "tests/common/cli_fixture.h"
#include "tests/common/sqlite_rows.h"
#include "tests/engine/fault_ids.h"

namespace {

namespace fs = std::filesystem;

using Result = meshtest::testing::CommandResult;

using meshtest::testing::run_meshtest;
using meshtest::testing::write_test_config;

using meshtest::testing::faults::id;
using meshtest::testing::faults::ids;

std::vector<std::string> query(const fs::path& db, const std::string& sql) {
  return meshtest::testing::query_rows(db, sql);
}

std::string read_file(const fs::path& p) { return meshtest::testing::read_text_file(p.string()); }

class Engine : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir / "config"); }
  fs::path db() const { return dir / "results.db"; }
  std::string common(const fs::path& store = {}) const {
    return std::string("--models-root ") + MESHTEST_ENGINE_FIXTURE_ROOT + " --config-dir " + (dir / "config").string() +
           " --db " + (store.empty() ? db() : store).string() + " --timeout 4 --hang-timeout 2 --max-memory 400M";
  }
  // test id -> "outcome|phase|failure_kind|error_message" of attempt 1
  std::map<std::string, std::string> results() const {
    std::map<std::string, std::string> out;
    for (const std::string& row :
         query(db(), "SELECT test_id, outcome, phase, failure_kind, error_message FROM results WHERE attempt = 1")) {
      out[row.substr(0, row.find('|'))] = row.substr(row.find('|') + 1);
    }
    return out;
  }

  const meshtest::testing::TestDir dir{"meshtest_engine_"};
};

// libgomp (oneDNN's pool) must not spin beside oneTBB's workers: meshtest
// re-executes itself with OMP_WAIT_POLICY=PASSIVE unless the caller chose one.
TEST(EngineThreads, OpenMpWaitsPassivelyUnlessTheCallerChose) {
  Result r = run_meshtest("--version", "env -u OMP_WAIT_POLICY");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OpenMP (oneDNN) wait policy: PASSIVE"), std::string::npos) << r.output;
  r = run_meshtest("--version", "env OMP_WAIT_POLICY=ACTIVE");
  EXPECT_NE(r.output.find("OpenMP (oneDNN) wait policy: ACTIVE"), std::string::npos) << r.output;
}

TEST_F(Engine, EachFaultGetsItsPhaseAndKindAndTheOtherCasesPass) {
  const Result r = run_meshtest("run -j 2 " + common() +
                           ids({"ok", "segfault", "abort", "infinite_loop", "hang", "oom", "exit0", "big_output",
                                "throw_load_model", "throw_load_inputs", "throw_golden", "throw_compile",
                                "throw_execute", "throw_compare"}),
                       "MESHTEST_TEST_FAIL_PHASE=throw_compile:compile,throw_execute:execute,throw_compare:compare");
  EXPECT_EQ(r.status, 1) << r.output;  // crashed/hung workers are errors
  const auto got = results();
  ASSERT_EQ(got.size(), 14u) << r.output;
  auto expect = [&](const std::string& variant, const std::string& prefix) {
    const std::string row = got.count(id(variant)) ? got.at(id(variant)) : "<missing>";
    EXPECT_EQ(row.substr(0, prefix.size()), prefix) << variant << ": " << row;
  };
  expect("ok", "passed|done||");
  expect("big_output", "passed|done||");
  expect("segfault", "error|load_model|crash|worker crashed with SIGSEGV");
  expect("abort", "error|load_model|crash|worker crashed with SIGABRT");
  expect("exit0", "error|load_model|crash|worker exited with status 0");
  expect("infinite_loop", "error|load_model|timeout|timed out");
  expect("hang", "error|load_model|hang|hung: no heartbeat");
  expect("oom", "error|load_model|oom|worker used");
  expect("throw_load_model", "failed|load_model|exception|checkpoint is corrupt");
  expect("throw_load_inputs", "failed|load_inputs|exception|input file missing");
  expect("throw_golden", "failed|golden|exception|");
  expect("throw_compile", "failed|compile|exception|injected failure entering phase compile");
  expect("throw_execute", "failed|execute|exception|injected failure entering phase execute");
  expect("throw_compare", "failed|compare|exception|injected failure entering phase compare");
  // 4 MB of output is captured head + tail, capped near 64 KiB.
  const auto captured = query(db(),
                              "SELECT length(captured_output), instr(captured_output, 'bytes of output dropped') > 0 "
                              "FROM results WHERE test_id = '" +
                                  id("big_output") + "'");
  ASSERT_EQ(captured.size(), 1u);
  const size_t bar = captured[0].find('|');
  EXPECT_GT(std::stoul(captured[0].substr(0, bar)), 60000u) << captured[0];
  EXPECT_LT(std::stoul(captured[0].substr(0, bar)), 70000u) << captured[0];
  EXPECT_EQ(captured[0].substr(bar + 1), "1");
  // The console names the hung case and its phase.
  EXPECT_NE(r.output.find("ERROR    pcc=     -"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(id("hang") + "\n         FAILED_FE_COMPILATION in phase load_model (hang)"),
            std::string::npos)
      << r.output;
}

TEST_F(Engine, ProcessIsolationIsTheDefaultAndNoneRunsInProcess) {
  Result r = run_meshtest("run " + common() + ids({"ok", "throw_load_inputs"}));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("worker(s)"), std::string::npos) << r.output;
  r = run_meshtest("run --isolation none " + common() + ids({"ok", "throw_load_inputs"}));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("in-process"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 passed, 1 failed"), std::string::npos) << r.output;
}

TEST_F(Engine, ProcessIsolationStoresWhatInProcessStores) {
  // The worker's record crosses a pipe as JSON; nothing may be lost on the way
  // (compile statistics and peak L1 once were). A zoo case from the default
  // models root; optimization level 2 places mnist's activations in L1.
  const std::string figures =
      "SELECT compile_stats, peak_device_l1_bytes, peak_device_dram_bytes, device_ops, mesh FROM results";
  std::map<std::string, std::string> stored;
  for (const std::string isolation : {"process", "none"}) {
    const fs::path store = dir / (isolation + ".db");
    const Result r = run_meshtest("run --optimization-level 2 --isolation " + isolation + " --cache-dir " + (dir / ("cache_" + isolation)).string() +
                         " --config-dir " + (dir / "config").string() + " --db " + store.string() +
                         " mnist/image_classification/native-mlp-single_device-inference");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto rows = query(store, figures);
    ASSERT_EQ(rows.size(), 1u) << isolation;
    stored[isolation] = rows[0];
  }
  EXPECT_EQ(stored["process"], stored["none"]);
  const std::string& row = stored["process"];
  EXPECT_NE(row.find("plan-memory.peak_l1_bytes="), std::string::npos) << "no compile statistics: " << row;
  EXPECT_GT(std::stoll(row.substr(row.find('|') + 1)), 0) << "no peak L1: " << row;
}

TEST_F(Engine, KilledRunResumesWithExactlyOneResultPerCase) {
  const fs::path gate = dir / "gate";
  std::ofstream(gate) << "closed\n";
  const fs::path log = dir / "first.log";
  const std::vector<std::string> variants = {"ok", "gate", "big_output", "throw_load_model", "throw_golden"};
  const pid_t pid = meshtest::testing::start_background("export MESHTEST_TEST_GATE=" + gate.string() + "; exec " +
                                                        MESHTEST_BINARY + " run -j 2 " + common() + ids(variants) +
                                                        " > " + log.string() + " 2>&1");
  ASSERT_GT(pid, 0);
  // Wait until every case but the gated one has a result, then kill the runner.
  meshtest::testing::wait_for_finished(log.string(), 4);
  ASSERT_EQ(query(db(), "SELECT test_id FROM results").size(), 4u) << read_file(log);
  kill(pid, SIGKILL);
  meshtest::testing::wait_exit(pid);
  EXPECT_EQ(query(db(), "SELECT run_id FROM runs WHERE finished_at IS NULL").size(), 1u);

  fs::remove(gate);
  const Result r = run_meshtest("run --resume -j 2 " + common() + ids(variants), "MESHTEST_TEST_GATE=" + gate.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 of 5 case(s) already have a final result"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(id("gate")), std::string::npos) << r.output;
  EXPECT_EQ(query(db(), "SELECT test_id FROM results GROUP BY test_id HAVING count(*) = 1").size(), 5u);
  EXPECT_EQ(query(db(), "SELECT test_id FROM results").size(), 5u);
  EXPECT_EQ(query(db(), "SELECT run_id FROM runs").size(), 1u);
  EXPECT_EQ(query(db(), "SELECT run_id FROM runs WHERE finished_at IS NULL").size(), 0u);
  // Nothing left to resume.
  EXPECT_EQ(run_meshtest("run --resume " + common() + ids(variants)).status, 2);
}

// A CI cancel: SIGTERM after 4 of 5 cases. The run stops its worker, writes
// JUnit for the 4, marks itself interrupted, exits 143; --resume finishes it.
TEST_F(Engine, SigtermWritesReportsMarksTheRunInterruptedAndResumeFinishesIt) {
  const fs::path gate = dir / "gate", log = dir / "first.log", junit = dir / "junit.xml";
  std::ofstream(gate) << "closed\n";
  const std::vector<std::string> variants = {"ok", "gate", "big_output", "throw_load_model", "throw_golden"};
  const pid_t pid = meshtest::testing::start_background(
      "export MESHTEST_TEST_GATE=" + gate.string() + "; exec " + MESHTEST_BINARY + " run -j 2 --junitxml " +
      junit.string() + " " + common() + ids(variants) + " > " + log.string() + " 2>&1");
  ASSERT_GT(pid, 0);
  meshtest::testing::wait_for_finished(log.string(), 4);
  ASSERT_EQ(query(db(), "SELECT test_id FROM results").size(), 4u) << read_file(log);
  kill(pid, SIGTERM);
  EXPECT_EQ(meshtest::testing::wait_exit(pid), 143) << read_file(log);
  const std::string output = read_file(log);
  EXPECT_NE(output.find("interrupted by SIGTERM after 4 of 5 case(s)"), std::string::npos) << output;
  EXPECT_NE(output.find("== 2 passed, 2 failed"), std::string::npos) << output;
  const std::string xml = read_file(junit);
  EXPECT_EQ(meshtest::testing::count_occurrences(xml, "<testcase "), 4u) << xml;
  EXPECT_EQ(xml.find("name=\"" + id("gate") + "\""), std::string::npos) << "the stopped case has no result";
  EXPECT_EQ(query(db(), "SELECT interrupted_by FROM runs WHERE finished_at IS NULL AND interrupted_at <> ''"),
            std::vector<std::string>{"SIGTERM"});
  const Result listed = run_meshtest("runs --db " + db().string());
  EXPECT_NE(listed.output.find(" interrupted "), std::string::npos) << listed.output;

  fs::remove(gate);
  const Result r = run_meshtest("run --resume -j 2 " + common() + ids(variants));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 of 5 case(s) already have a final result"), std::string::npos) << r.output;
  EXPECT_EQ(query(db(), "SELECT test_id FROM results GROUP BY test_id HAVING count(*) = 1").size(), 5u);
  EXPECT_EQ(query(db(), "SELECT test_id FROM results").size(), 5u);
  EXPECT_EQ(query(db(), "SELECT run_id FROM runs WHERE finished_at IS NULL").size(), 0u);
}

// The store after a kill between a failed attempt and its retry: attempt 1
// recorded as failed, the run unfinished. --resume goes on at attempt 2.
TEST_F(Engine, ResumeRetriesACaseKilledBeforeItsRetry) {
  const std::string env = "MESHTEST_TEST_FLAKY_FILE=" + (dir / "flaky_marker").string();
  run_meshtest("run " + common() + ids({"flaky", "ok"}), env);  // flaky fails (unspecified cases do not fail the run)
  query(db(), "UPDATE runs SET finished_at = NULL");
  const Result r = run_meshtest("run --resume --reruns 1 " + common() + ids({"flaky", "ok"}), env);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 2 case(s) already have a final result, 1 go on to their next attempt"),
            std::string::npos)
      << r.output;
  const std::vector<std::string> expected = {id("flaky") + "|1|failed", id("flaky") + "|2|passed",
                                             id("ok") + "|1|passed"};
  EXPECT_EQ(query(db(), "SELECT test_id, attempt, outcome FROM results ORDER BY test_id, attempt"), expected);
  EXPECT_NE(query(db(), "SELECT markers FROM results WHERE attempt = 2").at(0).find("flaky"), std::string::npos);
}

// A resumed shard keeps the cases it started with, although the interrupted
// run's own results (here: one very slow case) would rebalance the shards.
TEST_F(Engine, ResumedShardKeepsItsCases) {
  const std::vector<std::string> variants = {"ok", "big_output", "throw_load_model", "throw_load_inputs",
                                             "throw_golden", "flaky"};
  run_meshtest("run " + common() + ids(variants));  // history for balancing
  for (size_t i = 0; i < variants.size(); ++i) {
    query(db(), "UPDATE results SET wall_seconds = " + std::to_string(10 + i) + " WHERE test_id = '" +
                    id(variants[i]) + "'");
  }
  run_meshtest("run --shard 1/2 --run-id nightly-2 " + common() + ids(variants));
  const std::vector<std::string> shard = query(db(), "SELECT test_id FROM results WHERE run_id = 'nightly-2' "
                                                     "ORDER BY test_id");
  ASSERT_GE(shard.size(), 2u);
  // "Kill" it: one case never finished, another took very long.
  query(db(), "DELETE FROM results WHERE run_id = 'nightly-2' AND test_id = '" + shard[0] + "'");
  query(db(), "UPDATE results SET wall_seconds = 1000 WHERE run_id = 'nightly-2' AND test_id = '" + shard[1] + "'");
  query(db(), "UPDATE runs SET finished_at = NULL WHERE run_id = 'nightly-2'");
  const Result r = run_meshtest("run --resume --shard 1/2 " + common() + ids(variants));
  EXPECT_NE(r.output.find(": 1 case(s)"), std::string::npos) << r.output;
  EXPECT_EQ(query(db(), "SELECT test_id FROM results WHERE run_id = 'nightly-2' ORDER BY test_id"), shard)
      << r.output;
}

TEST_F(Engine, RerunsRecordEveryAttemptAndAPassOnRetryIsFlaky) {
  const std::string env = "MESHTEST_TEST_FLAKY_FILE=" + (dir / "flaky_marker").string();
  const Result r = run_meshtest("run --reruns 2 " + common() + ids({"flaky", "throw_load_model"}), env);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("FLAKY"), std::string::npos) << r.output;
  const auto rows = query(db(), "SELECT test_id, attempt, outcome FROM results ORDER BY test_id, attempt");
  const std::vector<std::string> expected = {id("flaky") + "|1|failed", id("flaky") + "|2|passed",
                                             id("throw_load_model") + "|1|failed", id("throw_load_model") + "|2|failed",
                                             id("throw_load_model") + "|3|failed"};
  EXPECT_EQ(rows, expected) << r.output;
  EXPECT_EQ(query(db(), "SELECT markers FROM results WHERE attempt = 2 AND outcome = 'passed'").at(0).find("flaky") !=
                std::string::npos,
            true);
}

TEST_F(Engine, YamlFlakyFailuresDoNotFailTheRunAndYamlTimeoutIsHonoured) {
  write_test_config(dir / "config" / "c.yaml", {{id("throw_load_model"), {"status: EXPECTED_PASSING", "flaky: true"}},
                                               {id("ok"), {"status: EXPECTED_PASSING"}},
                                               {id("infinite_loop"), {"timeout: 0.5"}}});
  Result r = run_meshtest("run " + common() + ids({"ok", "throw_load_model", "infinite_loop"}));
  EXPECT_EQ(r.status, 1) << r.output;  // the infinite loop times out (error)
  EXPECT_NE(r.output.find("the 0.5s deadline passed"), std::string::npos) << r.output;
  r = run_meshtest("run " + common() + ids({"ok", "throw_load_model"}));
  EXPECT_EQ(r.status, 0) << r.output;
  write_test_config(dir / "config" / "c.yaml", {{id("throw_load_model"), {"status: EXPECTED_PASSING"}}});
  EXPECT_EQ(run_meshtest("run " + common() + ids({"ok", "throw_load_model"})).status, 1);
}

TEST_F(Engine, NotimeoutMarkerDisablesTheDeadline) {
  write_test_config(dir / "config" / "c.yaml", {{id("gate"), {"markers: [notimeout]"}}});
  const fs::path gate = dir / "gate";
  std::ofstream(gate) << "closed\n";
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    fs::remove(gate);
  });
  std::string args = common();
  args.replace(args.find("--timeout 4"), 11, "--timeout 0.2");
  const Result r = run_meshtest("run " + args + ids({"gate"}), "MESHTEST_TEST_GATE=" + gate.string());
  opener.join();
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 passed"), std::string::npos) << r.output;
}

TEST_F(Engine, ShardsCoverEveryCaseOnceAndMergeIntoOneRun) {
  const std::vector<std::string> variants = {
      "ok", "big_output", "throw_load_model", "throw_load_inputs", "throw_golden", "gate", "flaky"};
  std::vector<std::string> seen;
  std::string inputs;
  for (int i = 1; i <= 3; ++i) {
    const fs::path shard_db = dir / ("shard" + std::to_string(i) + ".db");
    const Result r =
        run_meshtest("run --shard " + std::to_string(i) + "/3 --run-id nightly-1 " + common(shard_db) + ids(variants));
    ASSERT_EQ(r.status, 0) << r.output;
    for (const std::string& row : query(shard_db, "SELECT test_id FROM results")) seen.push_back(row);
    inputs += " " + shard_db.string();
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::string> all;
  for (const auto& v : variants) all.push_back(id(v));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(seen, all);
  const fs::path merged = dir / "merged.db";
  const Result m = run_meshtest("merge " + merged.string() + inputs);
  ASSERT_EQ(m.status, 0) << m.output;
  EXPECT_EQ(query(merged, "SELECT run_id FROM runs"), std::vector<std::string>{"nightly-1"});
  EXPECT_EQ(query(merged, "SELECT test_id FROM results").size(), variants.size());
  EXPECT_EQ(run_meshtest("run --shard 4/3 " + common()).status, 2);
}

// Selections that match nothing, or name a marker no case has, never pass.
TEST_F(Engine, EmptySelectionExitsFiveAndUnknownMarkersAreErrors) {
  const Result typo = run_meshtest("run " + common() + " -m expected_pasing");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_NE(typo.output.find("marker 'expected_pasing' (nearest known marker: '"), std::string::npos) << typo.output;
  const Result empty = run_meshtest("run " + common() + " -m expected_pasing --allow-unknown-markers");
  EXPECT_EQ(empty.status, 5) << empty.output;
  EXPECT_NE(empty.output.find("no test case matches the selection"), std::string::npos) << empty.output;
}

// One nightly run id on two arches x three shards, one p150 shard never
// started: every case is recorded per arch or reported MISSING, and the exit
// statuses say so (the kill-and-resume of a shard is KilledRunResumes...).
}  // namespace
