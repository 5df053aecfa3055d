// JUnit XML: standard elements per outcome, JSON-typed properties, escaping.
#include "reports/junit_xml.h"

#include <gtest/gtest.h>

namespace meshtest::reports {
namespace {

CaseResult result(const std::string& id, Outcome outcome) {
  CaseResult r;
  r.test_id = id;
  r.loader_dir = "m/native";
  r.outcome = outcome;
  r.pcc = 0.5;
  r.wall_seconds = 1.25;
  return r;
}

TEST(JunitXml, CountsAndElementsPerOutcome) {
  RunInfo run;
  run.run_id = "r1";
  std::vector<CaseResult> rs = {result("a", Outcome::Passed), result("b", Outcome::Failed),
                                result("c", Outcome::Error), result("d", Outcome::Skipped),
                                result("e", Outcome::Xfailed), result("f", Outcome::Xpassed)};
  const std::string xml = junit_xml(run, rs);
  EXPECT_NE(xml.find("tests=\"6\" failures=\"2\" errors=\"1\" skipped=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type="), std::string::npos);
  EXPECT_NE(xml.find("<error type="), std::string::npos);
  EXPECT_NE(xml.find("<skipped message="), std::string::npos);
  EXPECT_NE(xml.find("[XPASS(strict)]"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"pcc\" value=\"0.5\"/>"), std::string::npos);
  EXPECT_NE(xml.find("time=\"1.250\""), std::string::npos);
}

TEST(JunitXml, CapturedWorkerOutputIsTheCasesSystemOut) {
  RunInfo run;
  CaseResult r = result("a", Outcome::Failed);
  r.captured_output = "loading <weights>\nSegfault & more";
  const std::string xml = junit_xml(run, {r, result("b", Outcome::Passed)});
  EXPECT_NE(xml.find("<system-out>loading &lt;weights&gt;&#10;Segfault &amp; more</system-out>"), std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<system-out>"), xml.rfind("<system-out>"));  // none for a case without output
}

TEST(JunitXml, HostileStringsAreEscaped) {
  CaseResult r = result("x", Outcome::Failed);
  r.error_message = "<script>alert(\"&\")</script>\x01";
  const std::string xml = junit_xml({}, {r});
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_NE(xml.find("&lt;script&gt;alert(&quot;&amp;&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
}

}  // namespace
}  // namespace meshtest::reports
