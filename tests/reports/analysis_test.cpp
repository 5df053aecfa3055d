// Guidance tags, run diffs, flaky detection and line edits.
#include <gtest/gtest.h>

#include "reports/guidance.h"
#include "reports/line_edits.h"
#include "reports/run_analysis.h"
#include "tests/reports/sample_results.h"

namespace meshtest::reports {
namespace {

using testing::quick_result;
using testing::run_info;

std::vector<std::string> tags(Outcome outcome, const std::string& status, double pcc, bool assert_pcc = true,
                              double required = 0.99) {
  CaseResult r = quick_result("m/x", outcome, pcc);
  r.status = status;
  r.assert_pcc = assert_pcc;
  r.required_pcc = required;
  return guidance_for(r);
}

TEST(Guidance, TagsFollowStatusOutcomeAndPcc) {
  using V = std::vector<std::string>;
  EXPECT_EQ(tags(Outcome::Xpassed, "KNOWN_FAILURE_XFAIL", 0.991), V{"RM_XFAIL"});
  EXPECT_EQ(tags(Outcome::Passed, "UNSPECIFIED", 0.991), V{"ADD_CONFIG"});
  EXPECT_EQ(tags(Outcome::Passed, "EXPECTED_PASSING", 0.995, false), V{"ENABLE_PCC"});
  EXPECT_EQ(tags(Outcome::Passed, "EXPECTED_PASSING", 0.9995), V{});  // at the default: never tightened past it
  EXPECT_EQ(tags(Outcome::Passed, "EXPECTED_PASSING", 0.9995, true, 0.95), V{"RAISE_PCC"});
  EXPECT_EQ(tags(Outcome::Passed, "EXPECTED_PASSING", 0.9505, true, 0.95), V{});  // 0.948 after the margin
  EXPECT_EQ(tags(Outcome::Failed, "UNSPECIFIED", 0.5), V{});
  EXPECT_EQ(tags(Outcome::Passed, "EXPECTED_PASSING", NAN), V{});
  EXPECT_DOUBLE_EQ(raised_pcc_threshold(0.9787), 0.976);
  EXPECT_DOUBLE_EQ(raised_pcc_threshold(0.9999), 0.99);  // capped at the default
}

TEST(RunDiff, NewFailuresFixesPccDropsAndSlowdowns) {
  const std::vector<CaseResult> before = {quick_result("a", Outcome::Passed, 0.999, 1),
                                          quick_result("b", Outcome::Failed, 0.5, 1),
                                          quick_result("c", Outcome::Passed, 0.999, 1),
                                          quick_result("d", Outcome::Passed, 0.999, 1)};
  const std::vector<CaseResult> after = {quick_result("a", Outcome::Failed, 0.7, 1),
                                         quick_result("b", Outcome::Passed, 0.999, 1),
                                         quick_result("c", Outcome::Passed, 0.990, 1),
                                         quick_result("d", Outcome::Passed, 0.999, 5),
                                         quick_result("e", Outcome::Error, NAN, 1)};
  const RunDiff d = diff_runs(before, after);
  ASSERT_EQ(d.new_failures.size(), 2u);
  EXPECT_EQ(d.new_failures[0].test_id, "a");
  EXPECT_EQ(d.new_failures[1].test_id, "e");
  EXPECT_EQ(d.new_failures[1].before, nullptr);
  ASSERT_EQ(d.fixed.size(), 1u);
  EXPECT_EQ(d.fixed[0].test_id, "b");
  ASSERT_EQ(d.pcc_drops.size(), 2u);  // a (0.999 -> 0.7) and c (0.999 -> 0.990)
  ASSERT_EQ(d.slower.size(), 1u);
  EXPECT_EQ(d.slower[0].test_id, "d");
  EXPECT_TRUE(d.regressed());
  EXPECT_FALSE(diff_runs(before, before).regressed());
}

TEST(RunDiff, SlowerAloneIsListedButRegressesOnlyWhenAsked) {
  const std::vector<CaseResult> before = {quick_result("a", Outcome::Passed, 0.999, 2),
                                          quick_result("b", Outcome::Passed, 0.999, 0.1)};
  const std::vector<CaseResult> after = {quick_result("a", Outcome::Passed, 0.999, 6),   // x3 and 4 s more
                                         quick_result("b", Outcome::Passed, 0.999, 0.5)};  // x5 but 0.4 s: under the floor
  const RunDiff d = diff_runs(before, after);
  ASSERT_EQ(d.slower.size(), 1u);
  EXPECT_EQ(d.slower[0].test_id, "a");
  EXPECT_FALSE(d.regressed());
  DiffOptions strict;
  strict.fail_on_slower = true;
  EXPECT_TRUE(diff_runs(before, after, strict).regressed());
}

CaseResult with_perf(const std::string& id, double modelled, int64_t iterations, double execute) {
  CaseResult r = quick_result(id, Outcome::Passed, 0.999, 1);
  r.modelled_device_seconds = modelled;
  r.perf_iterations = iterations;
  r.perf_execute_seconds = execute;
  return r;
}

TEST(RunDiff, PerfRegressionsAreListedApartFromCorrectness) {
  const std::vector<CaseResult> before = {with_perf("a", 1e-3, 0, 0), with_perf("b", 1e-3, 5, 0.010),
                                          with_perf("c", 1e-3, 5, 0.010), with_perf("d", 0, 0, 0)};
  const std::vector<CaseResult> after = {with_perf("a", 1.06e-3, 0, 0),   // modelled +6%: past the 5% margin
                                         with_perf("b", 1.04e-3, 5, 0.012),  // modelled +4%; perf run +20%
                                         with_perf("c", 0.9e-3, 0, 0.020),   // not a perf run now: not compared
                                         with_perf("d", 1e-3, 0, 0)};        // nothing modelled before
  const RunDiff d = diff_runs(before, after);
  ASSERT_EQ(d.modelled_slower.size(), 1u);
  EXPECT_EQ(d.modelled_slower[0].test_id, "a");
  ASSERT_EQ(d.perf_slower.size(), 1u);
  EXPECT_EQ(d.perf_slower[0].test_id, "b");
  EXPECT_FALSE(d.regressed());  // perf alone is not a correctness regression ...
  DiffOptions strict;
  strict.fail_on_perf = true;
  EXPECT_TRUE(diff_runs(before, after, strict).regressed());  // ... unless asked
  strict.perf_margin = 0.25;
  EXPECT_FALSE(diff_runs(before, after, strict).regressed());
}

CaseResult with_threshold(CaseResult r, double required) {
  r.required_pcc = required;
  return r;
}

TEST(RunDiff, AFlipFromARequiredPccEditIsAThresholdChange) {
  // a: same PCC 0.995, threshold raised 0.99 -> 0.998; b: the same PCC drop fails for real.
  const std::vector<CaseResult> before = {quick_result("a", Outcome::Passed, 0.995),
                                          quick_result("b", Outcome::Passed, 0.995)};
  const std::vector<CaseResult> after = {with_threshold(quick_result("a", Outcome::Failed, 0.995), 0.998),
                                         quick_result("b", Outcome::Failed, 0.95)};
  const RunDiff d = diff_runs(before, after);
  ASSERT_EQ(d.threshold_changes.size(), 1u);
  EXPECT_EQ(d.threshold_changes[0].test_id, "a");
  ASSERT_EQ(d.new_failures.size(), 1u);
  EXPECT_EQ(d.new_failures[0].test_id, "b");
  // Lowering it back is not a fix either.
  const RunDiff back = diff_runs(after, before);
  EXPECT_EQ(back.threshold_changes.size(), 1u);
  ASSERT_EQ(back.fixed.size(), 1u);
  EXPECT_EQ(back.fixed[0].test_id, "b");
}

TEST(Flaky, FlipsFromThresholdEditsAreNotFlaky) {
  // P (0.99) F (0.998) P (0.99): the same PCC every night, the YAML edited twice.
  const double required[] = {0.99, 0.998, 0.99};
  std::vector<RunResults> runs;
  for (int i = 0; i < 3; ++i) {
    const Outcome o = i == 1 ? Outcome::Failed : Outcome::Passed;
    runs.push_back({run_info("r" + std::to_string(i), "2026-11-2" + std::to_string(i)),
                    {with_threshold(quick_result("a", o, 0.995), required[i])}, {}, "", {}});
  }
  EXPECT_TRUE(find_flaky(runs).empty());
  EXPECT_TRUE(flaky_ids(runs, /*strict=*/true).empty());
}

TEST(RunDiff, TheLastAttemptCounts) {
  CaseResult first = quick_result("a", Outcome::Failed, 0.5), retry = quick_result("a", Outcome::Passed, 0.999);
  retry.attempt = 2;
  EXPECT_EQ(final_results({first, retry}).at("a")->outcome, Outcome::Passed);
}

TEST(Flaky, FlipsAndRetriedPasses) {
  std::vector<RunResults> runs;
  const char* pattern_a = "PFP";  // flips twice: flaky
  const char* pattern_b = "PPF";  // broke once: a regression, not flaky
  for (int i = 0; i < 3; ++i) {
    RunResults run{run_info("r" + std::to_string(i), "2026-11-2" + std::to_string(i)), {}, {}, "", {}};
    run.results.push_back(quick_result("a", pattern_a[i] == 'P' ? Outcome::Passed : Outcome::Failed, 0.99));
    run.results.push_back(quick_result("b", pattern_b[i] == 'P' ? Outcome::Passed : Outcome::Failed, 0.99));
    run.results.push_back(quick_result("c", Outcome::Passed, 0.99));
    if (i == 0) {  // c failed on its first attempt and passed on retry
      run.results.back().outcome = Outcome::Failed;
      run.results.push_back(quick_result("c", Outcome::Passed, 0.99));
      run.results.back().attempt = 2;
    }
    runs.push_back(std::move(run));
  }
  const auto flaky = find_flaky(runs);
  ASSERT_EQ(flaky.size(), 2u);
  EXPECT_EQ(flaky[0].test_id, "a");
  EXPECT_EQ(flaky[0].outcomes, "PFP");
  EXPECT_EQ(flaky[0].flips, 2);
  EXPECT_EQ(flaky[1].test_id, "c");
  EXPECT_EQ(flaky[1].retried_passes, 1);
  EXPECT_EQ(flaky_ids(runs, /*strict=*/true), (std::set<std::string>{"a", "b", "c"}));
}

TEST(LineEdits, UnifiedDiffWithContextAndMergedHunks) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += "line " + std::to_string(i) + "\n";
  LineEdits e(text);
  e.replace(1, "LINE 2");
  e.erase(4);
  e.insert_before(16, {"new A", "new B"});
  EXPECT_EQ(e.unified_diff("a/f", "b/f"),
            "--- a/f\n+++ b/f\n"
            "@@ -1,8 +1,7 @@\n line 1\n-line 2\n+LINE 2\n line 3\n line 4\n-line 5\n line 6\n line 7\n line 8\n"
            "@@ -14,6 +13,8 @@\n line 14\n line 15\n line 16\n+new A\n+new B\n line 17\n line 18\n line 19\n");
  const std::string out = e.result();
  EXPECT_NE(out.find("line 1\nLINE 2\nline 3\nline 4\nline 6\n"), std::string::npos);
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(LineEdits("x\ny").result(), "x\ny");  // no trailing newline stays that way
}

}  // namespace
}  // namespace meshtest::reports
