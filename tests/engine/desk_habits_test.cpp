// Whole-binary tests of the habits a pytest user brings to the desk (docs/how-to/
// select-tests.md, "Habits from pytest"), on the fault-injection loader: -x/--maxfail, --lf,
// --ff, --durations, -q/-v/-vv after the subcommand, --collect-only, collect's
// status/markers/reason and --tree, `--json -`, colour, "did you mean",
// numeric option errors, labelled reruns (console and JUnit), tolerated
// flaky failures.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"
#include "tests/engine/fault_ids.h"

namespace {

namespace fs = std::filesystem;

using Result = meshtest::testing::CommandResult;
using meshtest::testing::count_occurrences;

using meshtest::testing::run_meshtest;
using meshtest::testing::ConfigEntry;

using meshtest::testing::faults::id;
using meshtest::testing::faults::ids;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

class Desk : public ::testing::Test {
 protected:
  void SetUp() override { write_config({}); }
  // Two cases that must pass and do not, one that passes, one xfail with a reason; then `more`.
  void write_config(const std::vector<ConfigEntry>& more) const {
    std::vector<ConfigEntry> entries = {
        {id("throw_load_model"), {"status: EXPECTED_PASSING"}},
        {id("throw_load_inputs"), {"status: EXPECTED_PASSING"}},
        {id("ok"), {"status: EXPECTED_PASSING", "markers: [push]"}},
        {id("throw_golden"), {"status: KNOWN_FAILURE_XFAIL", "reason: golden is broken (#12)"}}};
    entries.insert(entries.end(), more.begin(), more.end());
    meshtest::testing::write_test_config(dir / "config" / "c.yaml", entries);
  }
  std::string selection() const {
    return std::string("--models-root ") + MESHTEST_ENGINE_FIXTURE_ROOT + " --config-dir " + (dir / "config").string();
  }
  std::string common() const {
    return selection() + " --db " + (dir / "results.db").string() + " --timeout 4 --hang-timeout 2 --max-memory 400M";
  }
  const meshtest::testing::TestDir dir{"meshtest_desk_"};
};

TEST_F(Desk, ExitFirstAndMaxfailStopStartingCases) {
  const std::string three = ids({"throw_load_model", "throw_load_inputs", "ok"});
  Result r = run_meshtest("run -j 1 -x " + common() + three);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines_starting(r.output, "FAILED").size(), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "stopping after 1 unexpected result(s) (--maxfail 1); ")) << r.output;
  EXPECT_TRUE(has(r.output, " case(s) not run\n")) << r.output;
  r = run_meshtest("run -j 1 --maxfail 2 " + common() + three);
  EXPECT_EQ(lines_starting(r.output, "FAILED").size(), 2u) << r.output;
  r = run_meshtest("run -j 1 " + common() + three);  // without a limit every case runs
  EXPECT_EQ(lines_starting(r.output, "FAILED").size(), 2u) << r.output;
  EXPECT_EQ(lines_starting(r.output, "PASSED").size(), 1u) << r.output;
}

TEST_F(Desk, LastFailedRunsOnlyTheFailuresAndFailedFirstRunsThemFirst) {
  const std::string two = ids({"ok", "throw_load_model"});
  Result r = run_meshtest("run --lf -j 1 " + common() + two);  // nothing recorded yet: everything runs
  EXPECT_TRUE(has(r.output, "--lf: no case of this selection failed")) << r.output;
  EXPECT_EQ(lines_starting(r.output, "PASSED").size(), 1u) << r.output;
  r = run_meshtest("run --lf -j 1 " + common() + two);
  EXPECT_TRUE(has(r.output, "--lf: 1 case(s) failed last time on n150 (1 deselected)")) << r.output;
  EXPECT_EQ(lines_starting(r.output, "PASSED").size(), 0u) << r.output;
  EXPECT_EQ(lines_starting(r.output, "FAILED").size(), 1u) << r.output;
  // --ff: both run, the failure first (the scheduler would start "ok" first by name otherwise).
  r = run_meshtest("run --ff -j 1 " + common() + two);
  const size_t failed = r.output.find("FAILED "), passed = r.output.find("PASSED ");
  ASSERT_NE(failed, std::string::npos) << r.output;
  ASSERT_NE(passed, std::string::npos) << r.output;
  EXPECT_LT(failed, passed) << r.output;
  r = run_meshtest("run -j 1 " + common() + two);
  EXPECT_LT(r.output.find("PASSED "), r.output.find("FAILED ")) << r.output;
  // A case that passes again leaves the last-failed set.
  r = run_meshtest("run --lf --collect-only -q " + common() + two, "");
  EXPECT_TRUE(has(r.output, id("throw_load_model") + "\n")) << r.output;
  EXPECT_FALSE(has(r.output, id("ok"))) << r.output;
  const Result no_store =
      run_meshtest(std::string("run --lf --db '' --models-root ") + MESHTEST_ENGINE_FIXTURE_ROOT + ids({"ok"}));
  EXPECT_EQ(no_store.status, 2) << no_store.output;
  EXPECT_TRUE(has(no_store.output, "--lf reads the last failures from the results store")) << no_store.output;
}

TEST_F(Desk, DurationsListTheSlowestCases) {
  const Result r = run_meshtest("run -j 1 --durations 1 " + common() + ids({"ok", "throw_load_model"}));
  const size_t at = r.output.find("== slowest 1 durations ==\n");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string listed = r.output.substr(at, r.output.find("\n== ", at) - at);
  EXPECT_EQ(count_occurrences(listed, "faults/native-"), 1u) << r.output;
  EXPECT_FALSE(has(run_meshtest("run -j 1 " + common() + ids({"ok"})).output, "durations")) ;
}

TEST_F(Desk, VerbosityFlagsWorkAfterTheSubcommand) {
  const std::string two = ids({"ok", "throw_load_model"});
  Result r = run_meshtest("run -j 1 " + common() + two + " -q");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines_starting(r.output, "PASSED").size(), 0u) << r.output;  // -q: only what did not pass
  EXPECT_EQ(lines_starting(r.output, "FAILED").size(), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "1 passed, 1 failed")) << r.output;
  r = run_meshtest("run -j 1 " + common() + two + " -vv");
  EXPECT_EQ(count_occurrences(r.output, "[debug] discovered"), 1u) << r.output;  // once, not again in the fork server
  r = run_meshtest("-vv run -j 1 " + common() + two);  // before the subcommand too
  EXPECT_EQ(count_occurrences(r.output, "[debug] discovered"), 1u) << r.output;
  r = run_meshtest("run -j 1 " + common() + two + " -v");
  EXPECT_EQ(count_occurrences(r.output, "[debug]"), 0u) << r.output;
  EXPECT_EQ(run_meshtest("collect -v " + selection() + two).status, 0);
  EXPECT_EQ(run_meshtest("runs " + std::string("--db ") + (dir / "results.db").string() + " -q").status, 0);
}

TEST_F(Desk, CollectShowsStatusMarkersAndReasonAndATree) {
  const std::string four = ids({"ok", "throw_load_model", "throw_golden", "segfault"});
  Result r = run_meshtest("collect " + selection() + four);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, id("throw_golden") + "\n    KNOWN_FAILURE_XFAIL · markers: ")) << r.output;
  EXPECT_TRUE(has(r.output, "reason: golden is broken (#12)\n")) << r.output;
  EXPECT_TRUE(has(r.output, id("ok") + "\n    EXPECTED_PASSING · markers: ")) << r.output;
  EXPECT_TRUE(has(r.output, ", push,")) << r.output;
  EXPECT_TRUE(has(r.output, id("segfault") + "\n    UNSPECIFIED")) << r.output;
  r = run_meshtest("collect -q " + selection() + four);
  EXPECT_FALSE(has(r.output, "markers:")) << r.output;
  EXPECT_TRUE(has(r.output, id("ok") + "\n")) << r.output;
  r = run_meshtest("collect --tree " + selection() + four);
  EXPECT_TRUE(has(r.output, "faults/native  (4 cases)\n  ok-single_device-inference  EXPECTED_PASSING")) << r.output;
  EXPECT_TRUE(has(r.output, "4/")) << r.output;
  // --collect-only on run: the same listing, nothing run or recorded.
  r = run_meshtest("run --collect-only --tree " + common() + four);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "faults/native  (4 cases)")) << r.output;
  EXPECT_FALSE(has(r.output, "PASSED")) << r.output;
  const std::string runs = run_meshtest("runs --db " + (dir / "results.db").string()).output;
  EXPECT_FALSE(has(runs, "finished")) << runs;  // no run was begun in the store
}

// Stdout is JSON lines alone in both isolation modes, though a case run in
// this process prints 40,000 lines to stdout (big_output) and -vv logs.
TEST_F(Desk, JsonToStdoutPutsTheConsoleOnStderr) {
  for (const std::string isolation : {"process", "none"}) {
    // The subshell's own 2> wins over the 2>&1 run_command adds: r.output is stdout alone.
    const Result r = meshtest::testing::run_command(
        "(" + std::string(MESHTEST_BINARY) + " run -vv -j 1 --json - --isolation " + isolation + " " + common() +
        ids({"ok", "throw_load_model", "big_output"}) + " 2>" + (dir / "console.txt").string() + ")");
    std::istringstream out(r.output);
    std::vector<std::string> test_ids, not_json;
    for (std::string line; std::getline(out, line);) {
      if (nlohmann::json::accept(line)) test_ids.push_back(nlohmann::json::parse(line).value("test_id", ""));
      else not_json.push_back(line);
    }
    EXPECT_EQ(not_json.size(), 0u) << isolation << ": stdout has lines that are not JSON, the first: "
                                   << (not_json.empty() ? "" : not_json.front().substr(0, 200));
    EXPECT_EQ(test_ids.size(), 3u) << isolation;
    const std::string console = meshtest::testing::read_text_file((dir / "console.txt").string());
    EXPECT_TRUE(has(console, "2 passed, 1 failed")) << isolation << ": " << console.substr(0, 2000);
    EXPECT_TRUE(has(console, "PASSED ")) << isolation;
    EXPECT_TRUE(has(console, "[debug] ")) << isolation;  // -vv's log lines went to stderr
  }
}

TEST_F(Desk, ColourOnATerminalUnlessNoColorOrAsked) {
  const std::string args = "run -j 1 " + common() + ids({"ok"});
  EXPECT_FALSE(has(run_meshtest(args).output, "\033[32m"));  // a pipe: no colour
  EXPECT_TRUE(has(run_meshtest(args + " --color yes").output, "\033[32mPASSED"));
  // A terminal (script(1) gives the command one): colour unless NO_COLOR or --color no.
  const auto on_tty = [&](const std::string& env, const std::string& extra) {
    return meshtest::testing::run_command(env + " script -qec \"" + std::string(MESHTEST_BINARY) + " " + args + extra +
                                          "\" /dev/null")
        .output;
  };
  const std::string tty = on_tty("", "");
  EXPECT_TRUE(has(tty, "\033[32m1 passed")) << tty;
  EXPECT_FALSE(has(on_tty("NO_COLOR=1", ""), "\033[32m"));
  EXPECT_FALSE(has(on_tty("", " --color no"), "\033[32m"));
}

TEST_F(Desk, MisspeltSubcommandsAndOptionsGetASuggestion) {
  Result r = run_meshtest("rnu");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.output, "unknown subcommand 'rnu': did you mean 'run'?")) << r.output;
  EXPECT_FALSE(has(r.output, "A subcommand is required")) << r.output;
  r = run_meshtest("run --maxfial 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.output, "unknown option '--maxfial': did you mean '--maxfail'?")) << r.output;
  r = run_meshtest("report --rnus 3");
  EXPECT_TRUE(has(r.output, "did you mean '--runs'?")) << r.output;
}

// Each names the option, the accepted range and the value, as a usage error
// (exit 2). --check-args: nothing runs even if a value were accepted.
TEST_F(Desk, NumericOptionErrorsNameTheOptionNotADoubleRange) {
  for (const auto& [bad, message] : std::vector<std::pair<std::string, std::string>>{
           {"--timeout abc", "--timeout: expected a number >= 0, got 'abc'"},
           {"--reruns x", "--reruns: expected a whole number >= 0, got 'x'"},
           {"--reruns 1.5", "--reruns: expected a whole number >= 0, got '1.5'"},
           {"--hang-timeout 0", "--hang-timeout: expected a number > 0, got 0"},
           {"--durations -1", "--durations: expected a whole number >= 0, got -1"},
           {"-j -3", "--jobs: expected a whole number >= 1, got -3"},
           {"--jobs 0", "--jobs: expected a whole number >= 1, got 0"},
           {"--maxfail -1", "--maxfail: expected a whole number >= 0, got -1"},
           {"--max-memory 0", "--max-memory: expected a size > 0 such as 512M or 8G, got '0'"}}) {
    const Result r = run_meshtest("--check-args run " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.output;
    EXPECT_TRUE(has(r.output, message)) << bad << ": " << r.output;
    EXPECT_FALSE(has(r.output, "179769")) << bad << ": " << r.output;
  }
  // The bounds themselves parse.
  EXPECT_EQ(run_meshtest("--check-args run -j 1 --maxfail 0 --reruns 0 --durations 0").status, 0);
  const Result history = run_meshtest("--check-args history some/id --limit 0");
  EXPECT_EQ(history.status, 2);
  EXPECT_TRUE(has(history.output, "--limit: expected a whole number >= 1, got 0")) << history.output;
}

TEST_F(Desk, RerunsAreLabelledCountedAndKeptInJunit) {
  const std::string env = "MESHTEST_TEST_FLAKY_FILE=" + (dir / "flaky_marker").string();
  const fs::path junit = dir / "junit.xml";
  const Result r = run_meshtest("run -j 1 --reruns 1 --junitxml " + junit.string() + " " + common() +
                           ids({"flaky", "throw_load_model"}),
                       env);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(lines_starting(r.output, "RERUN").size(), 2u) << r.output;  // one per case's first attempt
  EXPECT_TRUE(has(r.output, "rerun: attempt 2 follows (--reruns)")) << r.output;
  EXPECT_EQ(lines_starting(r.output, "FLAKY").size(), 1u) << r.output;
  EXPECT_TRUE(has(r.output, "1 passed, 1 failed, 2 rerun in")) << r.output;
  const std::string xml = meshtest::testing::read_text_file(junit.string());
  EXPECT_EQ(count_occurrences(xml, "<flakyFailure "), 1u) << xml;  // passed on its rerun
  EXPECT_EQ(count_occurrences(xml, "<rerunFailure "), 1u) << xml;  // failed every time
  EXPECT_EQ(count_occurrences(xml, "<failure "), 1u) << xml;
  EXPECT_TRUE(has(xml, "<stackTrace>attempt 1: [")) << xml;
}

TEST_F(Desk, FlakyCaseFailureSaysItWasTolerated) {
  write_config({{id("throw_compare"), {"status: EXPECTED_PASSING", "flaky: true"}}});
  const Result r = run_meshtest("run -j 1 " + common() + ids({"ok", "throw_compare"}),
                       "MESHTEST_TEST_FAIL_PHASE=throw_compare:compare");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "tolerated: the case is marked flaky (test_config `flaky: true`)")) << r.output;
  EXPECT_TRUE(has(r.output, "1 tolerated (flaky)")) << r.output;
}

}  // namespace
