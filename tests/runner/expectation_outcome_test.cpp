// How a case's YAML status decides its outcome when it runs: xfail that
// passes is XPASS and unexpected unless --no-strict-xfail, NOT_SUPPORTED_SKIP
// is skipped with its reason unless --force-run, placeholders are reported
// as skipped with NOT_STARTED, and thresholds from the YAML are honoured.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/discovery.h"
#include "runner/engine/console_report.h"
#include "runner/pipeline/case_pipeline.h"
#include "tests/common/loader_case.h"

namespace meshtest::runner {
namespace {

using reports::Outcome;

// A one-layer model that always passes on the simulated chip.
class TinyLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"tiny"}; }
  sdk::ModelInfo info(std::string_view v) const override { return {"tiny", std::string(v), "red", "test"}; }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    GraphBuilder b("tiny");
    ValueId x = b.input("x", DType::F32, {1, 64});
    ValueId w = b.weight("fc.weight", {10, 64}, Initializer::normal(0, 0.125, hash_seed("tiny/fc.weight")));
    b.output("logits", b.linear(x, w));
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    return {{"x", random_normal({1, 64}, 42)}};
  }
};

class ExpectationOutcome : public ::testing::Test {
 protected:
  ExpectationOutcome() { options.compile.use_cache = false; }
  reports::CaseResult run() { return run_case(test_case, options); }

  testing::LoaderCase one{std::make_shared<TinyLoader>(), "tiny/native", "tiny", RunMode::Inference};
  TestCase& test_case = one.test_case;
  PipelineOptions options;
};

TEST_F(ExpectationOutcome, ExpectedPassingPasses) {
  test_case.expectation.status = config::TestStatus::ExpectedPassing;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_FALSE(is_unexpected(r));
}

TEST_F(ExpectationOutcome, XfailThatPassesIsAnUnexpectedXpass) {
  test_case.expectation.status = config::TestStatus::KnownFailureXfail;
  const reports::CaseResult strict = run();
  EXPECT_EQ(strict.outcome, Outcome::Xpassed) << strict.error_message;
  EXPECT_TRUE(is_unexpected(strict));
  options.strict_xfail = false;
  const reports::CaseResult relaxed = run();
  EXPECT_EQ(relaxed.outcome, Outcome::Passed);
  EXPECT_FALSE(is_unexpected(relaxed));
}

// The console says what to do about a stale xfail: the case line and the
// summary both point to `meshtest promote`; a plain pass says nothing of it.
TEST_F(ExpectationOutcome, AnXpassPointsToPromote) {
  test_case.expectation.status = config::TestStatus::KnownFailureXfail;
  const reports::CaseResult xpass = run();
  ASSERT_EQ(xpass.outcome, Outcome::Xpassed) << xpass.error_message;
  std::ostringstream line, summary;
  print_case_line(line, xpass);
  print_summary(summary, {xpass}, 1.0);
  EXPECT_NE(line.str().find("KNOWN_FAILURE_XFAIL in test_config, but it passed: `meshtest promote`"),
            std::string::npos)
      << line.str();
  EXPECT_NE(summary.str().find("`meshtest promote`"), std::string::npos) << summary.str();

  test_case.expectation.status = config::TestStatus::ExpectedPassing;
  const reports::CaseResult pass = run();
  std::ostringstream pass_line, pass_summary;
  print_case_line(pass_line, pass);
  print_summary(pass_summary, {pass}, 1.0);
  EXPECT_EQ((pass_line.str() + pass_summary.str()).find("promote"), std::string::npos) << pass_line.str();
}

TEST_F(ExpectationOutcome, XfailThatFailsIsExpected) {
  test_case.expectation.status = config::TestStatus::KnownFailureXfail;
  test_case.expectation.assert_atol = true;  // bf16 on the device never matches f32 exactly
  test_case.expectation.required_atol = 0.0;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Xfailed) << r.error_message;
  EXPECT_FALSE(is_unexpected(r));
}

TEST_F(ExpectationOutcome, NotSupportedSkipIsSkippedWithItsReasonUnlessForced) {
  test_case.expectation.status = config::TestStatus::NotSupportedSkip;
  test_case.expectation.reason = "needs 8 chips";
  const reports::CaseResult skipped = run();
  EXPECT_EQ(skipped.outcome, Outcome::Skipped);
  EXPECT_EQ(skipped.reason, "needs 8 chips");
  EXPECT_FALSE(is_unexpected(skipped));
  options.force_run = true;
  EXPECT_EQ(run().outcome, Outcome::Passed);
}

TEST_F(ExpectationOutcome, PlaceholdersAreReportedNotStarted) {
  TestCase p;
  p.id = "placeholder/meta-llama/llama-3.1-405b";
  p.placeholder = true;
  p.info.model = "meta-llama/Llama-3.1-405B";
  p.expectation.bringup_status = config::BringupStatus::NotStarted;
  const reports::CaseResult r = run_case(p, options);
  EXPECT_EQ(r.outcome, Outcome::Skipped);
  EXPECT_EQ(r.bringup_status, "NOT_STARTED");
  EXPECT_EQ(r.reason, "placeholder: no loader yet");
  EXPECT_FALSE(is_unexpected(r));
}

TEST_F(ExpectationOutcome, ThresholdsFromTheYamlAreUsed) {
  test_case.expectation.status = config::TestStatus::ExpectedPassing;
  test_case.expectation.assert_atol = true;
  test_case.expectation.required_atol = 0.0;
  const reports::CaseResult strict = run();
  EXPECT_DOUBLE_EQ(strict.required_atol, 0.0);
  EXPECT_EQ(strict.outcome, Outcome::Failed);
  EXPECT_TRUE(is_unexpected(strict));
  test_case.expectation.required_atol = 1.0;
  const reports::CaseResult unchecked = run();
  EXPECT_EQ(unchecked.outcome, Outcome::Passed) << unchecked.error_message;
}

}  // namespace
}  // namespace meshtest::runner
