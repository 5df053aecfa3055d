// Loading test_config YAML: fields, enum spellings, positioned diagnostics.
#include "config/test_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace meshtest::config {
namespace {

namespace fs = std::filesystem;

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("meshtest_config_test_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; }
  TestConfig load() { return load_test_config(dir.string(), diags); }

  fs::path dir;
  std::vector<Diagnostic> diags;
};

TEST_F(ConfigTest, ReadsEveryField) {
  write("a.yaml", R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    required_pcc: 0.98
    assert_atol: true
    required_atol: 0.5
    markers: [push, fast]
  bert/masked_lm/native-bert_base-single_device-inference:
    status: known_failure_xfail
    reason: "PCC drops on layer 11"
    bringup_status: incorrect_result
    markers: weekly
)");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << diags[0].to_string();
  const TestEntry* r = c.find("resnet/native-resnet50-single_device-inference");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, TestStatus::ExpectedPassing);
  EXPECT_DOUBLE_EQ(*r->required_pcc, 0.98);
  EXPECT_TRUE(*r->assert_atol);
  EXPECT_EQ(r->markers, (std::vector<std::string>{"push", "fast"}));
  EXPECT_EQ(r->defined_at.line, 2);
  EXPECT_EQ(r->defined_at.column, 3);
  const TestEntry* b = c.find("bert/masked_lm/native-bert_base-single_device-inference");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(*b->bringup_status, BringupStatus::IncorrectResult);
  EXPECT_EQ(b->markers, std::vector<std::string>{"weekly"});
}

TEST_F(ConfigTest, EveryProblemReportedWithFileLineColumn) {
  write("bad.yaml", R"(test_config:
  a-x-single_device-inference:
    statuss: EXPECTED_PASSING
    required_pcc: 1.5
  b-x-single_device-inference:
    status: PASSING_MAYBE
)");
  load();
  ASSERT_EQ(diags.size(), 3u);
  const std::string file = (dir / "bad.yaml").string();
  EXPECT_EQ(diags[0].to_string(), file + ":3:5: unknown field 'statuss'");
  EXPECT_EQ(diags[1].to_string(), file + ":4:19: field 'required_pcc' must be in [0.000000, 1.000000]");
  EXPECT_NE(diags[2].to_string().find(file + ":6:13: invalid status 'PASSING_MAYBE' (allowed: EXPECTED_PASSING"),
            std::string::npos);
}

TEST_F(ConfigTest, DuplicateIdAcrossFilesNamesBothPlaces) {
  write("a.yaml", "test_config:\n  x-single_device-inference:\n    status: EXPECTED_PASSING\n");
  write("b.yaml", "test_config:\n\n  x-single_device-inference:\n    status: EXPECTED_PASSING\n");
  load();
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].where.file, (dir / "b.yaml").string());
  EXPECT_EQ(diags[0].where.line, 3);
  EXPECT_NE(diags[0].message.find((dir / "a.yaml").string() + ":2:3"), std::string::npos);
}

TEST_F(ConfigTest, MalformedYamlHasAPosition) {
  write("broken.yaml", "test_config:\n  a: {status: \"unterminated\n");
  load();
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("malformed YAML"), std::string::npos);
  EXPECT_GT(diags[0].where.line, 0);
}

TEST(TestStatusNames, AcceptNamesAndLowerCaseValues) {
  EXPECT_EQ(parse_status("NOT_SUPPORTED_SKIP"), TestStatus::NotSupportedSkip);
  EXPECT_EQ(parse_status("not_supported_skip"), TestStatus::NotSupportedSkip);
  EXPECT_EQ(parse_status("Not_Supported_Skip"), std::nullopt);
  EXPECT_EQ(parse_bringup("FAILED_TTMLIR_COMPILATION"), BringupStatus::FailedTtmlirCompilation);
}

}  // namespace
}  // namespace meshtest::config
