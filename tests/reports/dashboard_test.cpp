// The dashboard as text: sections present, counts right, hostile strings escaped.
#include "reports/dashboard.h"

#include <gtest/gtest.h>

#include "tests/reports/sample_results.h"

namespace meshtest::reports {
namespace {

using testing::quick_result;
using testing::run_info;

std::vector<RunResults> two_runs() {
  RunResults first{run_info("run-1", "2026-11-21T00:00:00.000Z"), {}, {}, "", {}};
  first.results = {quick_result("m1/x", Outcome::Passed, 0.999), quick_result("m2/y", Outcome::Passed, 0.998)};
  RunResults second{run_info("run-2", "2026-11-22T00:00:00.000Z"), {}, {}, "", {}};
  CaseResult broken = quick_result("m2/y", Outcome::Failed, 0.41);
  broken.model = "<script>alert('model')</script>";
  broken.error_message = "output 'logits': PCC 0.41 < required 0.99 <script>alert(1)</script>";
  second.results = {quick_result("m1/x", Outcome::Passed, 0.999), broken};
  return {first, second};
}

TEST(Dashboard, HasEverySectionAndChart) {
  const std::string html = render_dashboard(two_runs());
  for (const char* id : {"id=\"overview\"", "id=\"changes\"", "id=\"trends\"", "id=\"failures\"",
                         "id=\"model-history\"", "id=\"flaky\"", "id=\"slowest\"", "id=\"guidance\"", "id=\"cases\"",
                         "<svg id=\"outcome-bar\"", "<svg id=\"pass-rate-chart\"", "<svg id=\"min-pcc-chart\"",
                         "<svg id=\"slowest-chart\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("data-outcome=\"passed\">1<"), std::string::npos);
  EXPECT_NE(html.find("data-outcome=\"failed\">1<"), std::string::npos);
  EXPECT_NE(html.find("id=\"new-failures-count\">1 new failure(s)"), std::string::npos);
}

TEST(Dashboard, StoreTextIsEscapedAndNothingLoadsFromTheNetwork) {
  const std::string html = render_dashboard(two_runs());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Dashboard, MissingCasesAreShownAndLowerThePassRate) {
  std::vector<RunResults> runs = two_runs();
  runs.back().missing = {"m3/z", "m4/<w>"};  // a shard that never started
  const std::string html = render_dashboard(runs);
  EXPECT_NE(html.find("data-outcome=\"missing\">2<"), std::string::npos);
  EXPECT_NE(html.find("id=\"missing-cases\""), std::string::npos);
  EXPECT_NE(html.find("m4/&lt;w&gt;"), std::string::npos);
  // 1 of the 4 selected cases passed: 25%, not the 50% of the two that ran.
  EXPECT_NE(html.find("run-2: 25%"), std::string::npos);
  EXPECT_EQ(render_dashboard(two_runs()).find("id=\"missing-cases\""), std::string::npos);
}

// Op-level golden's first op past its thresholds (first_bad_op) is shown with
// the failing case's message (the changes and the every-case tables, at least).
TEST(Dashboard, ShowsTheFirstOpPastItsThresholds) {
  std::vector<RunResults> runs = two_runs();
  runs.back().results.back().first_bad_op = "op #29 gelu (device op 29, chip 0, bf16[1,128,512]): scale 1.0097";
  const std::string html = render_dashboard(runs);
  size_t shown = 0;
  const std::string line = "first op past its per-op thresholds: op #29 gelu";
  for (size_t at = html.find(line); at != std::string::npos; at = html.find(line, at + 1)) ++shown;
  EXPECT_GE(shown, 2u) << html;
  EXPECT_EQ(render_dashboard(two_runs()).find("first op past"), std::string::npos);
}

TEST(Dashboard, EmptyStoreSaysSo) {
  EXPECT_NE(render_dashboard({}).find("no runs yet"), std::string::npos);
}

}  // namespace
}  // namespace meshtest::reports
