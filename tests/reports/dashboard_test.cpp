// The dashboard as text: sections present, counts right, hostile strings escaped.
#include "reports/dashboard.h"

#include <gtest/gtest.h>

#include "tests/common/run_command.h"
#include "tests/reports/sample_results.h"

namespace meshtest::reports {
namespace {

using meshtest::testing::count_occurrences;
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
  // One script, the page's own filter script, allowed by the nonce the CSP names.
  EXPECT_EQ(count_occurrences(html, "<script"), 1u);
  const size_t nonce_at = html.find("<script nonce=\"");
  ASSERT_NE(nonce_at, std::string::npos);
  const std::string nonce = html.substr(nonce_at + 15, html.find('"', nonce_at + 15) - nonce_at - 15);
  EXPECT_GE(nonce.size(), 16u);
  EXPECT_NE(html.find("script-src 'nonce-" + nonce + "'"), std::string::npos);
  EXPECT_EQ(html.find("unsafe-inline'; img-src data:; script-src 'unsafe"), std::string::npos);
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

// Expected failures are not failures: not in the failure groups, not
// lowering the pass rate, not painted red or orange in the history.
TEST(Dashboard, XfailsAreNotPaintedAsFailures) {
  RunResults run{run_info("run-1", "2026-11-21T00:00:00.000Z"), {}, {}, "", {}};
  CaseResult xfail = quick_result("m1/broken", Outcome::Xfailed, 0.2);
  xfail.status = "KNOWN_FAILURE_XFAIL";
  xfail.error_message = "known: the conv kernel is wrong";
  run.results = {quick_result("m1/x", Outcome::Passed, 0.999), xfail};
  const std::string html = render_dashboard({run});
  const std::string failures = html.substr(html.find("id=\"failures\""), html.find("id=\"xfails\"") - html.find("id=\"failures\""));
  EXPECT_NE(failures.find("No failures."), std::string::npos) << failures;
  const std::string xfails = html.substr(html.find("id=\"xfails\""));
  EXPECT_NE(xfails.find("known: the conv kernel is wrong"), std::string::npos);
  EXPECT_NE(html.find("run-1: 100%"), std::string::npos);  // 1 of 1 that had to pass
  EXPECT_NE(html.find("class=\"cP\"/>"), std::string::npos);  // the model: nothing failed
  EXPECT_EQ(html.find("class=\"cF\"/>"), std::string::npos);
  EXPECT_EQ(html.find("class=\"cO\"/>"), std::string::npos);
  run.results = {xfail};
  EXPECT_NE(render_dashboard({run}).find("class=\"cX\"/>"), std::string::npos);  // only expected failures
}

// The explorer: every arch's cases with what the filters read, long ids with
// break opportunities, per-arch and per-variant history, placeholders listed.
TEST(Dashboard, ExplorerRowsCarryTheFilterKeysAndPlaceholdersAreListed) {
  RunResults run{run_info("run-1", "2026-11-21T00:00:00.000Z"), {}, {}, "", {}};
  CaseResult a = quick_result("llama/causal_lm/native-3_2_1b-tensor_parallel-training", Outcome::Failed, 0.5);
  a.variant = "3_2_1b";
  a.group = "red";
  a.parallelism = "tensor_parallel";
  a.run_mode = "training";
  CaseResult b = a;
  b.arch = "p150";
  b.outcome = Outcome::Passed;
  CaseResult planned = quick_result("gemma/native-7b-single_device-inference", Outcome::Skipped, NAN);
  planned.markers = {"placeholder"};
  planned.bringup_status = "NOT_STARTED";
  planned.reason = "loader not written yet";
  run.results = {a, b, planned};
  const std::string html = render_dashboard({for_arch(run, "n150")}, {}, {run});
  EXPECT_NE(html.find("<tr data-f data-arch=\"n150\" data-family=\"llama\" data-group=\"red\" data-mode=\"training\" "
                      "data-par=\"tensor_parallel\" data-status=\"failed\" data-variant=\"3_2_1b\""),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("data-arch=\"p150\" data-family=\"llama\""), std::string::npos);
  EXPECT_NE(html.find("<option>p150</option>"), std::string::npos);
  EXPECT_NE(html.find("llama/<wbr>causal_lm/<wbr>native-<wbr>3_2_1b-<wbr>"), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"arch-history-chart\""), std::string::npos);
  EXPECT_NE(html.find("id=\"variant-table\""), std::string::npos);
  // The placeholder's row has no data-f: no filter hides it.
  const size_t at = html.find("<tr class=\"placeholder\">");
  ASSERT_NE(at, std::string::npos) << html;
  EXPECT_NE(html.find("loader not written yet", at), std::string::npos);
  EXPECT_NE(html.find("Placeholders: planned models without a loader (1;"), std::string::npos);
}

// A nightly's hundreds of PCC drops do not bury the page: a list over 20 is folded.
TEST(Dashboard, LongChangeListsAreFolded) {
  RunResults before{run_info("run-1", "2026-11-21T00:00:00.000Z"), {}, {}, "", {}};
  RunResults after{run_info("run-2", "2026-11-22T00:00:00.000Z"), {}, {}, "", {}};
  for (int i = 0; i < 25; ++i) {
    before.results.push_back(quick_result("m/" + std::to_string(i), Outcome::Passed, 0.999));
    after.results.push_back(quick_result("m/" + std::to_string(i), Outcome::Passed, 0.95));
  }
  EXPECT_NE(render_dashboard({before, after}).find("<details><summary>25 case(s)</summary>"), std::string::npos);
  after.results.resize(20);
  before.results.resize(20);
  EXPECT_EQ(render_dashboard({before, after}).find("<details><summary>20 case(s)</summary>"), std::string::npos);
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

// run --log-memory's peaks per phase: a column per phase in phase order with
// its MiB, the device DRAM peak as a marked line; a case without them gets the hint.
TEST(Dashboard, MemoryTimelineDrawsThePhasesOfACaseThatLoggedThem) {
  constexpr int64_t kMiB = 1048576;
  RunResults run{run_info("run-1", "2026-11-21T00:00:00.000Z"), {}, {}, "", {}};
  CaseResult logged = quick_result("m1/logged", Outcome::Passed, 0.999);
  logged.peak_host_rss_by_phase = {100 * kMiB, 250 * kMiB, 400 * kMiB, 720 * kMiB, 0};  // compare not reached
  logged.peak_host_rss_bytes = 720 * kMiB;
  logged.peak_device_dram_bytes = 900 * kMiB;
  CaseResult plain = quick_result("m2/plain", Outcome::Passed, 0.999);
  plain.peak_host_rss_bytes = 50 * kMiB;
  run.results = {logged, plain};
  const std::string html = render_dashboard({run});
  const size_t at = html.find("<section id=\"memory\">");
  ASSERT_NE(at, std::string::npos) << html;
  const std::string memory = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(memory.find("<tr data-f data-arch=\"n150\""), std::string::npos) << memory;  // the filter bar selects it
  EXPECT_NE(memory.find("m1/<wbr>logged"), std::string::npos);
  EXPECT_EQ(memory.find("m2/<wbr>plain"), std::string::npos);  // no figures: counted, not charted
  EXPECT_NE(memory.find("1 case(s) without per-phase figures: run with --log-memory to see phases."),
            std::string::npos)
      << memory;
  const size_t svg_at = memory.find("<svg id=\"memory-chart-0\"");
  ASSERT_NE(svg_at, std::string::npos) << memory;
  const std::string svg = memory.substr(svg_at, memory.find("</svg>", svg_at) - svg_at);
  size_t previous = 0;
  for (const char* column : {"load: 100.0 MiB", "golden: 250.0 MiB", "compile: 400.0 MiB", "execute: 720.0 MiB"}) {
    const size_t found = svg.find(std::string("<title>") + column + "</title></rect>");
    ASSERT_NE(found, std::string::npos) << column << "\n" << svg;
    EXPECT_GT(found, previous) << column << " out of phase order";
    previous = found;
  }
  EXPECT_NE(svg.find(">compare</text>"), std::string::npos) << svg;  // labelled, no column
  EXPECT_EQ(svg.find("compare: "), std::string::npos) << svg;
  EXPECT_EQ(count_occurrences(svg, "<rect class=\"col\""), 4u);
  EXPECT_NE(svg.find("<line class=\"mark\""), std::string::npos);
  EXPECT_NE(svg.find("device DRAM peak (per chip): 900.0 MiB"), std::string::npos) << svg;
  // The device peak is the highest figure: its line is at the top of the plot,
  // the execute column reaches 720/900 of the way there.
  EXPECT_NE(svg.find("<line class=\"mark\" x1=\"8.0\" x2=\"352.0\" y1=\"26.0\" y2=\"26.0\">"), std::string::npos)
      << svg;

  run.results = {plain};
  const std::string without = render_dashboard({run});
  EXPECT_NE(without.find("No case of the latest run has per-phase memory figures: run with --log-memory to see "
                         "phases."),
            std::string::npos);
  EXPECT_EQ(without.find("memory-chart-"), std::string::npos);
}

TEST(Dashboard, EmptyStoreSaysSo) {
  EXPECT_NE(render_dashboard({}).find("no runs yet"), std::string::npos);
}

}  // namespace
}  // namespace meshtest::reports
