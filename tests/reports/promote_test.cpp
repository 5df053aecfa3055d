// promote: golden test on the unified diff for a sample test_config (comments,
// quoting, spacing, a flaky case, a skip, a new entry), then --write changes
// exactly those lines; then before/after YAML for the safety rules: opt-in,
// capped PCC raising, stale bring-up fields, evidence from new archs.
#include "reports/promote.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/overrides.h"
#include "config/test_config.h"
#include "tests/reports/sample_results.h"

namespace meshtest::reports {
namespace {

namespace fs = std::filesystem;
using testing::quick_result;
using testing::run_info;

const std::string kData = std::string(MESHTEST_SOURCE_DIR) + "/tests/reports/data/promote";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CaseResult with_status(CaseResult r, const std::string& status) {
  r.status = status;
  return r;
}

// Three nightly runs of the sample zoo.
std::vector<RunResults> sample_runs() {
  const double alpha[] = {0.9991, 0.9987, 0.9995}, beta[] = {0.97, 0.975, 0.98};
  std::vector<RunResults> runs;
  for (int i = 0; i < 3; ++i) {
    RunResults run{run_info("run-" + std::to_string(i), "2026-11-2" + std::to_string(i) + "T00:00:00.000Z"), {}, {}, "", {}};
    auto& rs = run.results;
    rs.push_back(quick_result("alpha/native-a-single_device-inference", Outcome::Xpassed, alpha[i]));
    rs.push_back(quick_result("beta/native-b-single_device-inference", Outcome::Passed, beta[i]));
    rs.push_back(quick_result("gamma/native-g-single_device-inference", Outcome::Passed, 0.995));
    // delta passes every night, but in one night only on its retry: flaky, never promoted.
    rs.push_back(quick_result("delta/native-d-single_device-inference", i == 1 ? Outcome::Xfailed : Outcome::Xpassed,
                              0.999));
    if (i == 1) {
      rs.push_back(quick_result("delta/native-d-single_device-inference", Outcome::Xpassed, 0.999));
      rs.back().attempt = 2;
    }
    rs.push_back(quick_result("epsilon/native-e-single_device-inference", Outcome::Skipped, NAN));
    rs.push_back(quick_result("zeta/native-z-single_device-inference", Outcome::Passed, 0.991));
    rs.push_back(with_status(quick_result("eta/native-h-single_device-inference", Outcome::Passed, 0.9999),
                             "UNSPECIFIED"));
    rs.push_back(with_status(quick_result("theta/native-t-single_device-inference",
                                          i == 2 ? Outcome::Failed : Outcome::Passed, 0.999),
                             "UNSPECIFIED"));
    runs.push_back(std::move(run));
  }
  return runs;
}

fs::path copy_sample() {
  const fs::path dir = fs::temp_directory_path() / ("meshtest_promote_" + std::to_string(getpid())) / "test_config";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  fs::copy_file(kData + "/test_config/sample.yaml", dir / "sample.yaml");
  return dir;
}

// The golden files are for `promote --raise-pcc`: beta's loose 0.95 rises,
// no threshold goes past the default.
PromoteOptions raise_pcc() {
  PromoteOptions options;
  options.raise_pcc = true;
  return options;
}

TEST(Promote, DiffMatchesGolden) {
  const fs::path dir = copy_sample();
  const PromotionPlan plan = plan_promotions(sample_runs(), dir.string(), raise_pcc());
  const std::string expected = read(kData + "/expected.diff");
  EXPECT_EQ(plan.unified_diff(), expected) << "actual diff:\n" << plan.unified_diff();
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("delta/"), std::string::npos) << "the flaky case is named";
  fs::remove_all(dir.parent_path());
}

TEST(Promote, WriteChangesOnlyTheDiffedLines) {
  const fs::path dir = copy_sample();
  plan_promotions(sample_runs(), dir.string(), raise_pcc()).write();
  EXPECT_EQ(read(dir / "sample.yaml"), read(kData + "/expected_after.yaml"));
  // Promoting again from the same runs changes nothing more.
  EXPECT_EQ(plan_promotions(sample_runs(), dir.string(), raise_pcc()).unified_diff(), "");
  fs::remove_all(dir.parent_path());
}

TEST(Promote, FlowStyleEntriesAreLeftAlone) {
  const fs::path dir = fs::temp_directory_path() / ("meshtest_promote_flow_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "test_config:\n  m/x: {status: UNSPECIFIED}\n";
  RunResults run{run_info("r", "2026-11-22T00:00:00.000Z"), {quick_result("m/x", Outcome::Passed, 0.999)}, {}, "", {}};
  const PromotionPlan plan = plan_promotions({run}, dir.string());
  EXPECT_TRUE(plan.files.empty()) << plan.unified_diff();
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("edit it by hand"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Promote, PassesOnAnotherBackendAreLeftToAPerson) {
  const fs::path dir = fs::temp_directory_path() / ("meshtest_promote_backend_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << "test_config:\n  m/x:\n    status: KNOWN_FAILURE_XFAIL\n    reason: r\n";
  CaseResult on_plugin = quick_result("m/x", Outcome::Xpassed, 0.999);
  on_plugin.backend = "pjrt";
  RunResults run{run_info("r", "2026-11-22T00:00:00.000Z"), {on_plugin}, {}, "", {}};
  const PromotionPlan plan = plan_promotions({run}, dir.string());
  EXPECT_TRUE(plan.files.empty()) << plan.unified_diff();
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("passed on backend 'pjrt' (its expectation there is backend_overrides.pjrt"),
            std::string::npos)
      << plan.notes[0];
  fs::remove_all(dir);
}

TEST(Promote, NothingWithoutRuns) {
  const PromotionPlan plan = plan_promotions({}, kData + "/test_config");
  EXPECT_TRUE(plan.files.empty());
  EXPECT_FALSE(plan.notes.empty());
}

// A passing result of `id` on `arch`.
CaseResult passed_on(const std::string& id, double pcc, const std::string& arch = "n150") {
  CaseResult r = quick_result(id, Outcome::Passed, pcc);
  r.arch = arch;
  return r;
}

// Three runs, each holding `results`.
std::vector<RunResults> three_runs(const std::vector<CaseResult>& results) {
  std::vector<RunResults> runs;
  for (int i = 0; i < 3; ++i) runs.push_back({run_info("r" + std::to_string(i), "2026-11-2" + std::to_string(i)), results, {}, "", {}});
  return runs;
}

// The YAML file after `promote --write` of `runs` over `before`.
std::string promoted(const std::string& before, const std::vector<RunResults>& runs, PromoteOptions options = {}) {
  const fs::path dir = fs::temp_directory_path() / ("meshtest_promote_rules_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << before;
  plan_promotions(runs, dir.string(), options).write();
  const std::string after = read(dir / "a.yaml");
  fs::remove_all(dir);
  return after;
}

// The entry for `id` in `yaml` as the runner applies it on `arch`; fails the test on any diagnostic.
config::TestEntry loaded_for_arch(const std::string& yaml, const std::string& id, const std::string& arch) {
  config::TestConfig config;
  std::vector<config::Diagnostic> diagnostics;
  config::load_test_config_text(yaml, "a.yaml", config, diagnostics);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.front().message;
  const config::TestEntry* entry = config.find(id);
  EXPECT_NE(entry, nullptr) << yaml;
  return entry ? config::resolve_overrides(*entry, {arch}) : config::TestEntry{};
}

const std::string kLoose =
    "test_config:\n"
    "  m/loose:\n"
    "    status: EXPECTED_PASSING\n"
    "    required_pcc: 0.95\n"
    "  m/default:\n"
    "    status: EXPECTED_PASSING\n";

TEST(PromoteRules, ThresholdsStayWithoutRaisePcc) {
  const auto runs = three_runs({passed_on("m/loose", 0.97), passed_on("m/default", 0.9999)});
  EXPECT_EQ(promoted(kLoose, runs), kLoose);
}

TEST(PromoteRules, RaisePccLiftsOnlyThresholdsBelowTheDefaultAndNeverAboveIt) {
  const PromoteOptions raise = raise_pcc();
  // 0.97 - 0.002 -> 0.968; the default-threshold case at PCC 0.9999 is not tightened to 0.997.
  EXPECT_EQ(promoted(kLoose, three_runs({passed_on("m/loose", 0.97), passed_on("m/default", 0.9999)}), raise),
            "test_config:\n"
            "  m/loose:\n"
            "    status: EXPECTED_PASSING\n"
            "    required_pcc: 0.968\n"
            "  m/default:\n"
            "    status: EXPECTED_PASSING\n");
  // A loose threshold on a case at PCC 0.9999 rises to the default, not to 0.997.
  EXPECT_EQ(promoted(kLoose, three_runs({passed_on("m/loose", 0.9999)}), raise),
            "test_config:\n"
            "  m/loose:\n"
            "    status: EXPECTED_PASSING\n"
            "    required_pcc: 0.99\n"
            "  m/default:\n"
            "    status: EXPECTED_PASSING\n");
}

TEST(PromoteRules, MovingToExpectedPassingDropsStaleBringupStatusReasonAndExecutionPass) {
  const std::string before =
      "test_config:\n"
      "  m/fixed:\n"
      "    status: KNOWN_FAILURE_XFAIL\n"
      "    bringup_status: INCORRECT_RESULT   # PCC 0.93\n"
      "    execution_pass: BACKWARD\n"
      "    reason: \"PCC 0.93 < 0.99\"\n"
      "    markers: [push]\n";
  const std::string after = promoted(before, three_runs({passed_on("m/fixed", 0.998)}));
  EXPECT_EQ(after,
            "test_config:\n"
            "  m/fixed:\n"
            "    status: EXPECTED_PASSING\n"
            "    markers: [push]\n");
  EXPECT_FALSE(loaded_for_arch(after, "m/fixed", "n150").bringup_status.has_value());
  EXPECT_FALSE(loaded_for_arch(after, "m/fixed", "n150").execution_pass.has_value());
}

TEST(PromoteRules, APassOnANewArchAddsItToSupportedArchs) {
  const std::string before =
      "test_config:\n"
      "  m/everywhere:\n"
      "    status: KNOWN_FAILURE_XFAIL\n"
      "    reason: old\n"
      "  m/narrow:\n"
      "    status: EXPECTED_PASSING\n"
      "    supported_archs: [n150]   # widened by evidence\n";
  // The n150 and n300 nightlies are separate runs; the last three are n150, n300, n150.
  std::vector<RunResults> runs = three_runs({passed_on("m/everywhere", 0.999, "n150"), passed_on("m/narrow", 0.999)});
  for (CaseResult& r : runs[1].results) r.arch = "n300";
  const std::string after = promoted(before, runs);
  EXPECT_EQ(after,
            "test_config:\n"
            "  m/everywhere:\n"
            "    status: EXPECTED_PASSING\n"
            "    supported_archs: [n150, p150, n300]\n"
            "  m/narrow:\n"
            "    status: EXPECTED_PASSING\n"
            "    supported_archs: [n150, n300]   # widened by evidence\n");
  EXPECT_EQ(loaded_for_arch(after, "m/everywhere", "n300").supported_archs,
            (std::vector<std::string>{"n150", "p150", "n300"}));
}

TEST(PromoteRules, APassOnlyOnNewArchsPromotesThroughArchOverrides) {
  const std::string before =
      "test_config:\n"
      "  m/dp:\n"
      "    status: KNOWN_FAILURE_XFAIL\n"
      "    reason: \"gradient PCC 0.986 on n300-llmbox\"\n"
      "    supported_archs: [n300-llmbox]\n"
      "    arch_overrides:\n"
      "      # 8 chips: tighter\n"
      "      n300-llmbox: {required_pcc: 0.98}\n";
  const auto runs = three_runs({passed_on("m/dp", 0.995, "n300"), passed_on("m/new", 0.995, "n300")});
  const std::string after = promoted(before, runs);
  EXPECT_EQ(after,
            "test_config:\n"
            "  m/dp:\n"
            "    status: KNOWN_FAILURE_XFAIL\n"
            "    reason: \"gradient PCC 0.986 on n300-llmbox\"\n"
            "    supported_archs: [n300-llmbox, n300]\n"
            "    arch_overrides:\n"
            "      # 8 chips: tighter\n"
            "      n300-llmbox: {required_pcc: 0.98}\n"
            "      n300: {status: EXPECTED_PASSING}\n"
            "  m/new:\n"
            "    supported_archs: [n150, p150, n300]\n"
            "    arch_overrides: {n300: {status: EXPECTED_PASSING}}\n");
  EXPECT_EQ(loaded_for_arch(after, "m/dp", "n300").status, config::TestStatus::ExpectedPassing);
  EXPECT_EQ(loaded_for_arch(after, "m/dp", "n300-llmbox").status, config::TestStatus::KnownFailureXfail);
  EXPECT_EQ(loaded_for_arch(after, "m/new", "n300").status, config::TestStatus::ExpectedPassing);
  EXPECT_EQ(loaded_for_arch(after, "m/new", "n150").status, config::TestStatus::Unspecified);
}

}  // namespace
}  // namespace meshtest::reports
