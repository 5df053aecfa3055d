// The kill matrix's score per class of mutant (reports/kill_matrix.h): counts
// by class in first-appearance order, survivors named, printed as a table and
// written to the JSON matrix.
#include <gtest/gtest.h>

#include "reports/kill_matrix.h"

namespace meshtest::reports {
namespace {

CaseResult result(const std::string& id, Outcome outcome) {
  CaseResult r;
  r.test_id = id;
  r.outcome = outcome;
  return r;
}

// Two cases pass in the baseline; `caught` mutants fail case "b".
KillMatrix matrix() {
  const std::vector<CaseResult> baseline{result("a", Outcome::Passed), result("b", Outcome::Passed)};
  const std::vector<CaseResult> passing = baseline;
  const std::vector<CaseResult> failing{result("a", Outcome::Passed), result("b", Outcome::Failed)};
  return build_kill_matrix("base", baseline,
                           {{"s1", "r1", failing, "scale"},
                            {"d1", "r2", passing, "decode"},
                            {"s2", "r3", passing, "scale"},
                            {"d2", "r4", failing, "decode"},
                            {"s3", "r5", failing, "scale"}});
}

TEST(KillMatrixClasses, CountsEachClassInFirstAppearanceOrder) {
  const std::vector<ClassScore> scores = matrix().class_scores();
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].mutant_class, "scale");
  EXPECT_EQ(scores[0].mutants, 3);
  EXPECT_EQ(scores[0].killed, 2);
  EXPECT_EQ(scores[0].survivors, std::vector<std::string>{"s2"});
  EXPECT_EQ(scores[1].mutant_class, "decode");
  EXPECT_EQ(scores[1].killed, 1);
  EXPECT_DOUBLE_EQ(scores[1].score(), 0.5);
}

TEST(KillMatrixClasses, PrintedAfterTheMatrixAndWrittenToJson) {
  const KillMatrix m = matrix();
  const std::string text = format_kill_matrix(m);
  const size_t table = text.find("score per class:");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_LT(text.find("what caught each killed mutant"), table);
  EXPECT_NE(text.find("scale         3       2    66.7  s2"), std::string::npos) << text;
  EXPECT_NE(text.find("decode        2       1    50.0  d1"), std::string::npos) << text;
  const nlohmann::json json = kill_matrix_json(m);
  ASSERT_EQ(json.at("classes").size(), 2u);
  EXPECT_EQ(json.at("classes")[0].at("class"), "scale");
  EXPECT_EQ(json.at("classes")[0].at("killed"), 2);
  EXPECT_EQ(json.at("mutants")[1].at("class"), "decode");
}

}  // namespace
}  // namespace meshtest::reports
