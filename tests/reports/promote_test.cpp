// promote: golden test on the unified diff for a sample test_config (comments,
// quoting, spacing, a flaky case, a skip, a new entry), then --write changes
// exactly those lines.
#include "reports/promote.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

TEST(Promote, DiffMatchesGolden) {
  const fs::path dir = copy_sample();
  const PromotionPlan plan = plan_promotions(sample_runs(), dir.string());
  const std::string expected = read(kData + "/expected.diff");
  EXPECT_EQ(plan.unified_diff(), expected) << "actual diff:\n" << plan.unified_diff();
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("delta/"), std::string::npos) << "the flaky case is named";
  fs::remove_all(dir.parent_path());
}

TEST(Promote, WriteChangesOnlyTheDiffedLines) {
  const fs::path dir = copy_sample();
  plan_promotions(sample_runs(), dir.string()).write();
  EXPECT_EQ(read(dir / "sample.yaml"), read(kData + "/expected_after.yaml"));
  // Promoting again from the same runs changes nothing more.
  EXPECT_EQ(plan_promotions(sample_runs(), dir.string()).unified_diff(), "");
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

TEST(Promote, NothingWithoutRuns) {
  const PromotionPlan plan = plan_promotions({}, kData + "/test_config");
  EXPECT_TRUE(plan.files.empty());
  EXPECT_FALSE(plan.notes.empty());
}

}  // namespace
}  // namespace meshtest::reports
