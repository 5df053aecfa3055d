// `meshtest triage` as a whole binary on the scripted broken nightly
// (broken_nightly.h): the Markdown it writes equals the golden file, the
// console and --json say the same, and bad windows are usage errors.
//
// Regenerating the golden (after a deliberate change to the Markdown, or to
// test_config/failure_reasons.yaml's class names or summaries): run
//   MESHTEST_REGENERATE_GOLDEN=1 build/tests/reports/triage_cli_test
// then read the diff of tests/reports/data/triage/broken_nightly.md before
// committing it: every group, label and "since" must still be right.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reports/result_store.h"
#include "tests/common/cli_fixture.h"
#include "tests/reports/broken_nightly.h"

namespace {

using meshtest::testing::CommandResult;
using meshtest::testing::read_text_file;
using meshtest::testing::run_meshtest;

const std::string kGolden = std::string(MESHTEST_SOURCE_DIR) + "/tests/reports/data/triage/broken_nightly.md";
const std::string kConfigDir = std::string(MESHTEST_SOURCE_DIR) + "/test_config";

class TriageCli : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = meshtest::reports::open_store(db().string());
    meshtest::reports::testing::write_broken_nightly(*store, meshtest::reports::testing::shipped_failure_classes());
  }
  std::filesystem::path db() const { return dir / "results.db"; }
  CommandResult triage(const std::string& args) {
    return run_meshtest("triage --db " + db().string() + " --config-dir " + kConfigDir + " " + args);
  }
  meshtest::testing::TestDir dir{"meshtest_triage_"};
};

TEST_F(TriageCli, MarkdownOfTodaysNightlyMatchesTheGoldenFile) {
  const std::string md = (dir / "triage.md").string();
  const CommandResult r = triage(std::string("--run ") + meshtest::reports::testing::kToday + " --markdown " + md);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string got = read_text_file(md);
  if (const char* regenerate = std::getenv("MESHTEST_REGENERATE_GOLDEN"); regenerate && std::string(regenerate) == "1") {
    std::ofstream(kGolden) << got;
    GTEST_SKIP() << "golden rewritten: " << kGolden;
  }
  const std::string want = read_text_file(kGolden);
  ASSERT_FALSE(want.empty()) << "no golden at " << kGolden << " (see the top of this file)";
  EXPECT_EQ(got, want) << "the triage Markdown differs from " << kGolden << " (see the top of this file)";
  EXPECT_NE(r.output.find("40 failing cases in 6 groups: 18 new, 20 persisting, 2 flaky; 2 fixed"), std::string::npos)
      << r.output;
}

TEST_F(TriageCli, JsonOfTheLatestRunCountsTheFixedTimeouts) {
  const CommandResult r = triage("--json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto json = nlohmann::json::parse(r.output);
  EXPECT_EQ(json["run"]["run_id"], meshtest::reports::testing::kRerun);
  EXPECT_EQ(json["counts"]["failing"], 33);
  EXPECT_EQ(json["fixed"][0]["class"], "TIMEOUT");
  EXPECT_EQ(json["fixed"][0]["counts"]["fixed"], 7);
}

TEST_F(TriageCli, BadWindowsAreUsageErrors) {
  EXPECT_EQ(triage("--against x --days 2").status, 2);
  const CommandResult unknown = triage("--run no-such-run");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.output.find("no run 'no-such-run'"), std::string::npos) << unknown.output;
  EXPECT_EQ(run_meshtest("triage --db " + (dir / "missing.db").string()).status, 2);
}

}  // namespace
