// Matrix ids, markers and selection by ids, -k and -m.
#include "runner/collection/selection.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "runner/collection/matrix.h"

namespace meshtest::runner {
namespace {

TestCase make_case(const std::string& dir, const std::string& variant, std::vector<std::string> markers) {
  TestCase c;
  c.loader_dir = dir;
  c.info.variant = variant;
  c.id = make_test_id(dir, variant, Parallelism::SingleDevice, RunMode::Inference);
  c.markers = std::move(markers);
  return c;
}

std::vector<std::string> ids(const Selection& s) {
  std::vector<std::string> out;
  for (const TestCase* c : s.selected) out.push_back(c->id);
  return out;
}

TEST(TestIds, Format) {
  EXPECT_EQ(make_test_id("llama/causal_lm/native", "llama_3_2_1b", Parallelism::TensorParallel, RunMode::Inference),
            "llama/causal_lm/native-llama_3_2_1b-tensor_parallel-inference");
  EXPECT_EQ(make_test_id("mnist/native", "", Parallelism::DataParallel, RunMode::Training),
            "mnist/native-data_parallel-training");
}

class SelectionTest : public ::testing::Test {
 protected:
  std::vector<TestCase> cases = {
      make_case("resnet/native", "resnet50", {"inference", "single_device", "red", "expected_passing"}),
      make_case("resnet/native", "resnet18", {"inference", "single_device", "red"}),
      make_case("bert/masked_lm/native", "bert_base", {"inference", "single_device", "priority"}),
  };
};

TEST_F(SelectionTest, KeywordIsCaseInsensitiveSubstringOfIdOrMarker) {
  EXPECT_EQ(ids(select_cases(cases, {"RESNET50", "", {}})),
            std::vector<std::string>{"resnet/native-resnet50-single_device-inference"});
  EXPECT_EQ(select_cases(cases, {"prior", "", {}}).selected.size(), 1u);  // marker substring
  EXPECT_EQ(select_cases(cases, {"resnet and not 18", "", {}}).selected.size(), 1u);
}

TEST_F(SelectionTest, MarkerMatchesWholeNamesOnly) {
  EXPECT_EQ(select_cases(cases, {"", "red", {}}).selected.size(), 2u);
  EXPECT_EQ(select_cases(cases, {"", "re", {}, /*allow_unknown_markers=*/true}).selected.size(), 0u);
  const Selection s = select_cases(cases, {"", "red and expected_passing", {}});
  EXPECT_EQ(s.selected.size(), 1u);
  EXPECT_EQ(s.deselected, 2u);
}

TEST_F(SelectionTest, UnknownMarkerIsAnErrorNamingTheNearest) {
  try {
    select_cases(cases, {"", "red and expected_pasing", {}});
    FAIL() << "an unknown marker was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'expected_pasing'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nearest known marker: 'expected_passing'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(select_cases(cases, {"", "p150 and red", {}}));  // arch names are always known
}

TEST_F(SelectionTest, ExactIds) {
  const Selection s = select_cases(cases, {"", "", {"bert/masked_lm/native-bert_base-single_device-inference"}});
  EXPECT_EQ(s.selected.size(), 1u);
  EXPECT_THROW(select_cases(cases, {"", "", {"nope"}}), Error);
}

TEST_F(SelectionTest, ExcludedModelsAreDeselected) {
  cases[0].expectation.status = config::TestStatus::ExcludeModel;
  EXPECT_EQ(select_cases(cases, {"resnet50", "", {}}).selected.size(), 0u);
}

TEST_F(SelectionTest, LoaderFailuresIgnoreMarkersButHonourKeywords) {
  TestCase broken;
  broken.id = broken.loader_dir = "broken/native";
  broken.loader_error = "dlopen failed";
  broken.markers = {"loader_error"};
  cases.push_back(broken);
  EXPECT_EQ(ids(select_cases(cases, {"", "priority", {}})),
            (std::vector<std::string>{"bert/masked_lm/native-bert_base-single_device-inference", "broken/native"}));
  EXPECT_EQ(select_cases(cases, {"resnet", "", {}}).selected.size(), 2u);
}

TEST_F(SelectionTest, MalformedExpressionIsAParseError) {
  EXPECT_THROW(select_cases(cases, {"", "red and", {}}), ParseError);
}

}  // namespace
}  // namespace meshtest::runner
