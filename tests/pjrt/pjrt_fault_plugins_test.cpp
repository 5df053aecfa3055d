// Whole-binary tests of `meshtest run --backend pjrt` on PJRT plugins that go
// wrong on purpose (fault_plugins/fault_plugin.cpp): a plugin that does not
// load stops the run before any case (exit 2, naming the plugin and why); a
// plugin's compile error fails the case in phase compile with the plugin's
// message; a plugin that crashes or hangs in execute costs only the case
// (its forked worker), and the run goes on to the next case; a client that
// crashes while the run asks its platform stops the run before any case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;

using meshtest::testing::CommandResult;
using meshtest::testing::run_meshtest;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Two small cases of the build's model zoo, run in this order (-j 1).
const std::string kFirst = "mnist/image_classification/native-mlp-single_device-inference";
const std::string kSecond = "mnist/image_classification/native-mlp-single_device-training";

std::string fault_plugin(const std::string& variant) {
  return std::string(MESHTEST_FAULT_PLUGIN_DIR) + "/libpjrt_fault_" + variant + ".so";
}

class PjrtFaultPlugins : public ::testing::Test {
 protected:
  fs::path db() const { return dir / "results.db"; }

  // `meshtest run --backend pjrt --pjrt-plugin <plugin>` on `ids`, one case at a time.
  CommandResult run(const std::string& plugin, const std::string& ids, const std::string& extra = "") const {
    return run_meshtest("run --backend pjrt --pjrt-plugin " + plugin + " -j 1 --no-compile-cache --db " +
                        db().string() + " " + extra + " " + ids);
  }

  // test id -> "outcome|phase|failure_kind|error_message" of attempt 1.
  std::map<std::string, std::string> results() const {
    std::map<std::string, std::string> out;
    sqlite3* handle = nullptr;
    if (!fs::exists(db()) || sqlite3_open_v2(db().c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(handle);
      return out;
    }
    sqlite3_stmt* stmt = nullptr;
    const char* sql = "SELECT test_id, outcome, phase, failure_kind, error_message FROM results WHERE attempt = 1";
    if (sqlite3_prepare_v2(handle, sql, -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::string row;
        for (int i = 1; i < 5; ++i) {
          const unsigned char* text = sqlite3_column_text(stmt, i);
          row += (i > 1 ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "");
        }
        out[reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))] = row;
      }
    }
    sqlite3_finalize(stmt);
    sqlite3_close(handle);
    return out;
  }

  const meshtest::testing::TestDir dir{"meshtest_pjrt_faults_"};
};

// The control: the plugin every fault plugin forwards to runs both cases.
TEST_F(PjrtFaultPlugins, TheRealPluginPassesBothCases) {
  const CommandResult r = run(MESHTEST_REAL_PLUGIN, kFirst + " " + kSecond);
  EXPECT_EQ(r.status, 0) << r.output;
  const auto got = results();
  ASSERT_EQ(got.size(), 2u) << r.output;
  EXPECT_THAT(got.at(kFirst), StartsWith("passed|")) << r.output;
  EXPECT_THAT(got.at(kSecond), StartsWith("passed|")) << r.output;
}

TEST_F(PjrtFaultPlugins, APluginThatDoesNotLoadStopsTheRunBeforeAnyCase) {
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"missing_symbol", "no symbol GetPjrtApi"},
      {"wrong_major", "PJRT API major version"},
      {"small_struct", "struct_size"},
  };
  for (const auto& [variant, reason] : variants) {
    const std::string plugin = fault_plugin(variant);
    const CommandResult r = run(plugin, kFirst);
    EXPECT_EQ(r.status, 2) << variant << ":\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(plugin)) << variant;
    EXPECT_THAT(r.output, HasSubstr(reason)) << variant;
    EXPECT_TRUE(results().empty()) << variant << ": a case ran\n" << r.output;
  }
}

// The run asks the plugin's platform (backend_overrides.pjrt:<platform>) in
// a child process: a client that crashes there stops the run with the signal.
TEST_F(PjrtFaultPlugins, AClientThatCrashesStopsTheRunBeforeAnyCase) {
  const std::string plugin = fault_plugin("client_segfault");
  const CommandResult r = run(plugin, kFirst);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("PJRT plugin " + plugin + ": creating a client crashed (SIGSEGV)"));
  EXPECT_TRUE(results().empty()) << r.output;
}

TEST_F(PjrtFaultPlugins, ACompileErrorFailsTheCaseInPhaseCompileWithThePluginsMessage) {
  const CommandResult r = run(fault_plugin("compile_error"), kFirst);
  EXPECT_EQ(r.status, 1) << r.output;
  const auto got = results();
  ASSERT_EQ(got.count(kFirst), 1u) << r.output;
  EXPECT_THAT(got.at(kFirst), StartsWith("failed|compile|")) << r.output;
  // The real plugin's verdict on "this is not mlir", with its status code and
  // the place in the program (its wording is the plugin's own).
  EXPECT_THAT(got.at(kFirst), HasSubstr("INVALID_ARGUMENT: <pjrt program>:1:1: ")) << r.output;
}

TEST_F(PjrtFaultPlugins, ASegfaultInExecuteIsACrashAndTheNextCaseStillRuns) {
  const CommandResult r = run(fault_plugin("execute_segfault"), kFirst + " " + kSecond);
  EXPECT_EQ(r.status, 1) << r.output;
  const auto got = results();
  ASSERT_EQ(got.size(), 2u) << r.output;
  for (const std::string& id : {kFirst, kSecond}) {
    EXPECT_THAT(got.at(id), StartsWith("error|execute|crash|worker crashed with SIGSEGV")) << id;
  }
}

TEST_F(PjrtFaultPlugins, AHangInExecuteIsATimeoutAndTheNextCaseStillRuns) {
  const CommandResult r = run(fault_plugin("execute_hang"), kFirst + " " + kSecond, "--timeout 10 --hang-timeout 60");
  EXPECT_EQ(r.status, 1) << r.output;
  const auto got = results();
  ASSERT_EQ(got.size(), 2u) << r.output;
  for (const std::string& id : {kFirst, kSecond}) {
    EXPECT_THAT(got.at(id), StartsWith("error|execute|timeout|timed out")) << id;
  }
}

}  // namespace
