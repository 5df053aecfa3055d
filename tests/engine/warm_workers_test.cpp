// Whole-binary tests of warm workers (run --cases-per-worker N): several
// cases share a worker process (the pid each case prints lands in its
// captured output) and each keeps its own output; a crash, a timeout or a
// hang takes down only its worker, with the record it gets today, and the
// next case starts in a new one; a retry starts in a new one; each case's
// deadline counts from when it was handed over; memory a case left behind
// is released before the worker takes the next case.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"
#include "tests/common/sqlite_rows.h"
#include "tests/engine/fault_ids.h"

namespace {

namespace fs = std::filesystem;

using Result = meshtest::testing::CommandResult;
using meshtest::testing::query_rows;
using meshtest::testing::run_meshtest;
using meshtest::testing::faults::id;
using meshtest::testing::faults::ids;

// One attempt's record, as stored.
struct Record {
  std::string variant;
  int attempt = 1;
  std::string outcome, phase, failure_kind, error_message, captured_output;
  int pid = 0;  // from "<variant> ran in pid <pid>" in the captured output; 0 if absent
};

// The pid a fault-loader case printed (fixture_loaders/fault_loader.cpp).
int printed_pid(const std::string& variant, const std::string& output) {
  const std::string marker = variant + " ran in pid ";
  const size_t at = output.find(marker);
  return at == std::string::npos ? 0 : std::stoi(output.substr(at + marker.size()));
}

class EngineWarmWorkers : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir / "config"); }

  // Runs the fault loader's `variants` one at a time (-j 1) into a new store.
  Result run(const std::vector<std::string>& variants, const std::string& options, const std::string& env = "") {
    const fs::path store = dir / ("run" + std::to_string(++runs_) + ".db");
    db_ = store;
    return run_meshtest("run -j 1 --models-root " + std::string(MESHTEST_ENGINE_FIXTURE_ROOT) + " --config-dir " +
                            (dir / "config").string() + " --db " + store.string() +
                            " --timeout 3 --hang-timeout 2 --max-memory 400M " + options + ids(variants),
                        env);
  }

  // The last run's records in the order their cases started.
  std::vector<Record> records() const {
    std::vector<Record> out;
    for (const std::string& row : query_rows(db_, "SELECT test_id, attempt, outcome, phase, failure_kind, "
                                                  "error_message, captured_output FROM results "
                                                  "ORDER BY started_at, attempt")) {
      std::vector<std::string> cells;
      size_t start = 0;
      for (int i = 0; i < 6; ++i) {
        const size_t bar = row.find('|', start);
        cells.push_back(row.substr(start, bar - start));
        start = bar + 1;
      }
      Record r;
      const std::string prefix = "faults/native-";
      r.variant = cells[0].substr(prefix.size(), cells[0].find("-single_device") - prefix.size());
      r.attempt = std::stoi(cells[1]);
      r.outcome = cells[2];
      r.phase = cells[3];
      r.failure_kind = cells[4];
      r.error_message = cells[5];
      r.captured_output = row.substr(start);
      r.pid = printed_pid(r.variant, r.captured_output);
      out.push_back(r);
    }
    return out;
  }

  static std::vector<std::string> variants_of(const std::vector<Record>& records) {
    std::vector<std::string> out;
    for (const Record& r : records) out.push_back(r.variant);
    return out;
  }

  const meshtest::testing::TestDir dir{"meshtest_warm_"};

 private:
  int runs_ = 0;
  fs::path db_;
};

// Largest trailing number first: the scheduler's order of these variants.
const std::vector<std::string> kFive = {"print_pid60", "print_pid50", "print_pid40", "print_pid10", "print_pid5"};

TEST_F(EngineWarmWorkers, CasesShareAWorkerUpToTheLimitAndEachKeepsItsOwnOutput) {
  Result r = run(kFive, "--cases-per-worker 4");
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<Record> got = records();
  ASSERT_EQ(variants_of(got), kFive) << r.output;
  for (const Record& c : got) {
    EXPECT_EQ(c.outcome, "passed") << c.variant;
    EXPECT_NE(c.pid, 0) << c.variant << ": " << c.captured_output;
    // Its own stdout and stderr, nothing of the case before it in the same worker.
    EXPECT_NE(c.captured_output.find("stderr of " + c.variant + "\n"), std::string::npos) << c.captured_output;
    for (const std::string& other : kFive) {
      if (other == c.variant) continue;
      EXPECT_EQ(c.captured_output.find(other + " ran in pid"), std::string::npos) << c.captured_output;
      EXPECT_EQ(c.captured_output.find("stderr of " + other + "\n"), std::string::npos) << c.captured_output;
    }
  }
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(got[i].pid, got[0].pid) << got[i].variant;
  EXPECT_NE(got[4].pid, got[0].pid) << "a worker ran more than --cases-per-worker 4 cases";

  r = run(kFive, "--cases-per-worker 1");
  ASSERT_EQ(r.status, 0) << r.output;
  got = records();
  std::set<int> pids;
  for (const Record& c : got) pids.insert(c.pid);
  EXPECT_EQ(pids.size(), kFive.size()) << "--cases-per-worker 1 must start a new worker for every case";
}

TEST_F(EngineWarmWorkers, ACrashTakesDownOnlyItsWorkerWithTheRecordItGetsInAFreshOne) {
  const std::vector<std::string> order = {"print_pid60", "print_pid40", "segfault", "print_pid10", "print_pid5"};
  Result r = run(order, "--cases-per-worker 1");
  ASSERT_EQ(r.status, 1) << r.output;
  const Record fresh = records().at(2);
  r = run(order, "--cases-per-worker 8");
  ASSERT_EQ(r.status, 1) << r.output;
  const std::vector<Record> got = records();
  ASSERT_EQ(variants_of(got), order) << r.output;
  const Record& crash = got[2];
  EXPECT_EQ(crash.outcome + "|" + crash.phase + "|" + crash.failure_kind, "error|load_model|crash");
  EXPECT_EQ(crash.error_message.rfind("worker crashed with SIGSEGV", 0), 0u) << crash.error_message;
  EXPECT_EQ(crash.outcome, fresh.outcome);
  EXPECT_EQ(crash.phase, fresh.phase);
  EXPECT_EQ(crash.failure_kind, fresh.failure_kind);
  EXPECT_EQ(crash.error_message, fresh.error_message);
  EXPECT_EQ(crash.captured_output, fresh.captured_output);
  for (size_t i : {0, 1, 3, 4}) EXPECT_EQ(got[i].outcome, "passed") << got[i].variant;
  EXPECT_EQ(got[1].pid, got[0].pid);
  EXPECT_NE(got[3].pid, got[1].pid) << "the case after the crash must start in a new worker";
  EXPECT_EQ(got[4].pid, got[3].pid);
}

TEST_F(EngineWarmWorkers, ATimeoutAndAHangKillOnlyTheirWorker) {
  const std::vector<std::string> order = {"print_pid60", "hang", "infinite_loop", "print_pid10"};
  const Result r = run(order, "--cases-per-worker 8");
  ASSERT_EQ(r.status, 1) << r.output;
  const std::vector<Record> got = records();
  ASSERT_EQ(variants_of(got), order) << r.output;
  EXPECT_EQ(got[0].outcome, "passed");
  EXPECT_EQ(got[1].outcome + "|" + got[1].phase + "|" + got[1].failure_kind + "|" + got[1].error_message,
            "error|load_model|hang|hung: no heartbeat from the worker for 2s");
  EXPECT_EQ(got[2].outcome + "|" + got[2].phase + "|" + got[2].failure_kind + "|" + got[2].error_message,
            "error|load_model|timeout|timed out: the 3s deadline passed");
  EXPECT_EQ(got[3].outcome, "passed");
  EXPECT_NE(got[3].pid, 0);
  EXPECT_NE(got[3].pid, got[0].pid);
}

TEST_F(EngineWarmWorkers, ARetryStartsInANewWorker) {
  const Result r = run({"print_pid60", "flaky"}, "--reruns 1 --cases-per-worker 8",
                       "MESHTEST_TEST_FLAKY_FILE=" + (dir / "flaky_marker").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<Record> got = records();
  ASSERT_EQ(got.size(), 3u) << r.output;
  EXPECT_EQ(got[1].variant + "#" + std::to_string(got[1].attempt) + " " + got[1].outcome, "flaky#1 failed");
  EXPECT_EQ(got[2].variant + "#" + std::to_string(got[2].attempt) + " " + got[2].outcome, "flaky#2 passed");
  EXPECT_EQ(got[1].pid, got[0].pid) << "attempt 1 runs in the warm worker";
  EXPECT_NE(got[2].pid, 0);
  EXPECT_NE(got[2].pid, got[1].pid) << "a retry must start in a new worker";
}

// Each case's deadline counts from when it was handed to the worker, not from
// the worker's start: four cases of 0.6-1 s (3.1 s in all) under a 2 s
// deadline in one worker.
TEST_F(EngineWarmWorkers, EachCasesDeadlineCountsFromItsHandover) {
  std::string sleepy;
  for (const char* v : {"ms1000", "ms800", "ms700", "ms600"}) {
    sleepy += std::string(" sleepy/native-") + v + "-single_device-inference";
  }
  const Result r = run_meshtest("run -j 1 --cases-per-worker 8 --timeout 2 --models-root " +
                                std::string(MESHTEST_SLEEP_FIXTURE_ROOT) + " --config-dir " +
                                (dir / "config").string() + " --db ''" + sleepy);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 passed"), std::string::npos) << r.output;
}

// "retain_heap300" leaves 300 MiB of freed heap resident; "fresh_blocks250"
// then needs 250 MiB of new memory. Under --max-memory 400M the worker must
// release what the first case left (it is above half the limit) or the
// second case is killed for memory it never used.
TEST_F(EngineWarmWorkers, MemoryACaseLeftIsReleasedBeforeTheNextCase) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory in its own quarantine";
#endif
  const std::vector<std::string> order = {"retain_heap300", "fresh_blocks250", "print_pid5"};
  const Result r = run(order, "--cases-per-worker 8");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::vector<Record> got = records();
  ASSERT_EQ(variants_of(got), order) << r.output;
  for (const Record& c : got) {
    EXPECT_EQ(c.outcome + "|" + c.failure_kind + "|" + c.error_message, "passed||") << c.variant;
  }
  EXPECT_NE(got[0].pid, 0);
  EXPECT_EQ(got[1].pid, got[0].pid) << "the cases must share one worker";
  EXPECT_EQ(got[2].pid, got[0].pid) << "the cases must share one worker";
}

}  // namespace
