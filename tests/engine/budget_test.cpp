// run --budget and collect --estimate (issue 30). Unit: durations parse, the
// expected wall time on N workers, and the budgeted job source sets aside
// what cannot finish (fake clock). Whole binary, on cases that sleep a known
// time (fixture_loaders/sleep_loader.cpp, ~5 s of work standing in for a
// nightly's 10 min): history from a first run, a 1.5 s budget ("3 min") at
// -j 1 — no case is stopped, the rest are MISSING with the reason "budget",
// exit 7, and `diff` names them; the estimate of a rerun is printed next to
// its actual wall time (never asserted: timing is not a test's business).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "reports/sqlite_database.h"
#include "runner/engine/budget.h"
#include "tests/common/cli_fixture.h"

namespace meshtest::runner {
namespace {

// --- unit -------------------------------------------------------------------

TEST(Budget, DurationsParseWithUnits) {
  EXPECT_EQ(parse_duration("4h"), 4 * 3600);
  EXPECT_EQ(parse_duration("30m"), 1800);
  EXPECT_EQ(parse_duration("90s"), 90);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("2.5h"), 9000);
  EXPECT_EQ(parse_duration("600"), 600);
  for (const char* bad : {"", "0", "-3m", "4x", "1h30", "m", "abc"}) {
    EXPECT_THROW(parse_duration(bad), ParseError) << "'" << bad << "'";
  }
  EXPECT_EQ(duration_text(3900), "1h05m");
  EXPECT_EQ(duration_text(200), "3m20s");
  EXPECT_EQ(duration_text(4.2), "4.2s");
}

std::vector<TestCase> make_cases(const std::vector<std::string>& variants) {
  std::vector<TestCase> cases(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    cases[i].id = "m/native-" + variants[i] + "-single_device-inference";
    cases[i].info.variant = variants[i];
  }
  return cases;
}

std::vector<const TestCase*> pointers(const std::vector<TestCase>& cases) {
  std::vector<const TestCase*> out;
  for (const TestCase& c : cases) out.push_back(&c);
  return out;
}

reports::CaseHistory took(double seconds) { return {seconds, 0, 3}; }

TEST(Budget, CasesWithoutHistoryAreAssumedTheMedianOfTheOthers) {
  const auto cases = make_cases({"a", "b", "c", "d"});
  const DurationEstimates e =
      estimate_durations(pointers(cases), {{cases[0].id, took(1)}, {cases[1].id, took(5)}, {cases[2].id, took(9)}});
  EXPECT_EQ(e.assumed, 1u);
  EXPECT_EQ(e.seconds.at(cases[3].id), 5);
}

TEST(Budget, ExpectedWallTimeIsLongestFirstOntoTheWorkerFreeFirst) {
  const auto cases = make_cases({"a", "b", "c", "d", "e"});
  std::map<std::string, reports::CaseHistory> history;
  const double seconds[] = {6, 5, 4, 3, 2};
  for (size_t i = 0; i < cases.size(); ++i) history[cases[i].id] = took(seconds[i]);
  const DurationEstimates e = estimate_durations(pointers(cases), history);
  EXPECT_EQ(expected_wall_seconds(e, 1), 20);
  EXPECT_EQ(expected_wall_seconds(e, 2), 11);  // {6, 3, 2} and {5, 4}
  EXPECT_EQ(expected_wall_seconds(e, 8), 6);
}

// The source hands out what fits and sets aside, at once, what no longer can.
TEST(Budget, SourceSetsAsideWhatCannotFinishAndKeepsRetries) {
  const auto cases = make_cases({"long", "mid", "short"});
  std::vector<ScheduledJob> jobs;
  const double seconds[] = {8, 4, 1};
  std::map<std::string, double> expected;
  for (size_t i = 0; i < cases.size(); ++i) {
    jobs.push_back({&cases[i], {seconds[i], 0, true}, 1, false});
    expected[cases[i].id] = seconds[i];
  }
  Scheduler scheduler(jobs, 0);
  double now = 0;
  BudgetedSource source(scheduler, expected, 10, [&now] { return now; });
  std::optional<ScheduledJob> first = source.next(0, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->test_case->id, cases[0].id);  // 0 + 8 <= 10
  now = 7;
  std::optional<ScheduledJob> second = source.next(0, 1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->test_case->id, cases[2].id);  // 7 + 4 > 10: "mid" set aside; 7 + 1 fits
  EXPECT_EQ(source.not_started(), std::vector<std::string>{cases[1].id});
  now = 9.5;
  source.retry(*first);  // a retry continues a started case: not held to the budget
  EXPECT_TRUE(source.next(0, 1));
  EXPECT_FALSE(source.next(0, 1));
  EXPECT_TRUE(source.empty());
}

// --- the whole binary -------------------------------------------------------

const std::vector<std::string> kVariants = {"ms1000", "ms800", "ms700", "ms600", "ms500",
                                            "ms450",  "ms400", "ms300", "ms200", "ms100"};  // 5.05 s in all

std::string id(const std::string& variant) { return "sleepy/native-" + variant + "-single_device-inference"; }

class BudgetRun : public ::testing::Test {
 protected:
  std::string common() const {
    return std::string("--models-root ") + MESHTEST_SLEEP_FIXTURE_ROOT + " --config-dir " + (dir / "config").string() +
           " --db " + db();
  }
  std::string db() const { return (dir / "results.db").string(); }
  std::string all() const {
    std::string out;
    for (const std::string& v : kVariants) out += " " + id(v);
    return out;
  }
  testing::CommandResult meshtest(const std::string& args) const { return testing::run_meshtest(args); }
  std::vector<std::string> column(const std::string& sql) const {
    reports::SqliteDatabase store(db());
    std::vector<std::string> out;
    for (const reports::SqlRow& row : store.query(sql, {})) out.push_back(row.text(0));
    return out;
  }

  const testing::TestDir dir{"meshtest_budget_"};
};

// "[12.34 s]" of `collect --estimate`, "in 12.34s ==" of a run's summary.
double seconds_in(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return -1;
  return std::stod(m[1]);
}

TEST_F(BudgetRun, CutRunLeavesTheRestMissingForBudgetAndTheEstimateIsPrinted) {
  std::filesystem::create_directories(dir / "config");
  const testing::CommandResult fresh = meshtest("collect --estimate -j 2" + all() + " " + common());
  ASSERT_EQ(fresh.status, 0) << fresh.output;
  EXPECT_NE(fresh.output.find("10 without history"), std::string::npos) << fresh.output;

  const testing::CommandResult history = meshtest("run -j 2 --run-id history" + all() + " " + common());
  ASSERT_EQ(history.status, 0) << history.output;

  // The estimate of a rerun next to its actual wall time, for the closing note.
  const testing::CommandResult estimate = meshtest("collect --estimate -j 2" + all() + " " + common());
  ASSERT_EQ(estimate.status, 0) << estimate.output;
  EXPECT_EQ(estimate.output.find("without history"), std::string::npos) << estimate.output;
  const double expected = seconds_in(estimate.output, R"(\[([0-9.]+) s\])");
  const testing::CommandResult rerun = meshtest("run -j 2 --run-id rerun" + all() + " " + common());
  ASSERT_EQ(rerun.status, 0) << rerun.output;
  const double actual = seconds_in(rerun.output, R"( in ([0-9.]+)s )");
  ASSERT_GT(expected, 0) << estimate.output;
  ASSERT_GT(actual, 0) << rerun.output;
  std::printf("[ FIGURE   ] collect --estimate -j 2: %.2f s expected, the rerun took %.2f s (estimate %+.0f%%)\n",
              expected, actual, 100 * (expected - actual) / actual);

  // About 5 s of work at -j 1 in a 1.5 s budget.
  const testing::CommandResult cut = meshtest("run -j 1 --budget 1.5s --run-id cut" + all() + " " + common());
  EXPECT_EQ(cut.status, 7) << cut.output;
  EXPECT_NE(cut.output.find("MISSING with the reason \"budget\""), std::string::npos) << cut.output;
  const std::vector<std::string> ran = column("SELECT test_id FROM results WHERE run_id = 'cut'");
  const std::vector<std::string> outcomes = column("SELECT outcome FROM results WHERE run_id = 'cut'");
  const std::vector<std::string> missing = column("SELECT test_id FROM missing_cases WHERE run_id = 'cut'");
  const std::vector<std::string> reasons = column("SELECT not_run_reason FROM missing_cases WHERE run_id = 'cut'");
  EXPECT_EQ(ran.size() + missing.size(), kVariants.size());
  ASSERT_FALSE(missing.empty()) << cut.output;
  EXPECT_EQ(std::set<std::string>(ran.begin(), ran.end()).count(id("ms1000")), 1u) << "the longest starts first";
  for (const std::string& o : outcomes) EXPECT_EQ(o, "passed") << "a case stopped for the budget?";
  for (const std::string& r : reasons) EXPECT_EQ(r, "budget");

  // diff names them, with why, and counts them as missing (a regression).
  const testing::CommandResult diff = meshtest("diff rerun cut --db " + db());
  EXPECT_EQ(diff.status, 1) << diff.output;
  EXPECT_NE(diff.output.find(missing.front() + " (not run: budget)"), std::string::npos) << diff.output;
}

}  // namespace
}  // namespace meshtest::runner
