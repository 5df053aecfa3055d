// Loading test_config YAML: every field, enum spellings, placeholders,
// merging files, per-field source locations.
#include "config/test_config.h"

#include <gtest/gtest.h>

#include "config_fixture.h"

namespace meshtest::config {
namespace {

using ConfigTest = ConfigDirTest;

TEST_F(ConfigTest, ReadsEveryField) {
  write("a.yaml", R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    reason: "fine"
    bringup_status: PASSED
    required_pcc: 0.98
    assert_pcc: true
    required_atol: 0.5
    assert_atol: yes
    assert_allclose: False
    allclose_rtol: 1e-3
    allclose_atol: 0.02
    markers: [push, fast]
    supported_archs: [n150, n300-llmbox]
    batch_size: 8
    seq_len: 128
    optimization_level: 2
    enable_weight_bfp8_conversion: true
    math_fidelity: lofi
    execution_pass: backward
    filechecks: [resnet.ttnn.mlir]
    timeout: 90.5
    flaky: true
)");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  const TestEntry* r = c.find("resnet/native-resnet50-single_device-inference");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, TestStatus::ExpectedPassing);
  EXPECT_EQ(r->reason, "fine");
  EXPECT_EQ(r->bringup_status, BringupStatus::Passed);
  EXPECT_DOUBLE_EQ(*r->required_pcc, 0.98);
  EXPECT_TRUE(*r->assert_pcc);
  EXPECT_DOUBLE_EQ(*r->required_atol, 0.5);
  EXPECT_TRUE(*r->assert_atol);
  EXPECT_FALSE(*r->assert_allclose);
  EXPECT_DOUBLE_EQ(*r->allclose_rtol, 1e-3);
  EXPECT_DOUBLE_EQ(*r->allclose_atol, 0.02);
  EXPECT_EQ(r->markers, (std::vector<std::string>{"push", "fast"}));
  EXPECT_EQ(r->supported_archs, (std::vector<std::string>{"n150", "n300-llmbox"}));
  EXPECT_EQ(*r->batch_size, 8);
  EXPECT_EQ(*r->seq_len, 128);
  EXPECT_EQ(*r->optimization_level, 2);
  EXPECT_TRUE(*r->enable_weight_bfp8_conversion);
  EXPECT_EQ(*r->math_fidelity, "LoFi");
  EXPECT_EQ(*r->execution_pass, "BACKWARD");
  EXPECT_EQ(r->filechecks, std::vector<std::string>{"resnet.ttnn.mlir"});
  EXPECT_DOUBLE_EQ(*r->timeout_seconds, 90.5);
  EXPECT_TRUE(r->flaky);
  EXPECT_EQ(r->defined_at.to_string(), path("a.yaml") + ":2:3");
  EXPECT_EQ(r->sources.size(), 21u);
  EXPECT_EQ(r->sources.at("required_pcc").to_string(), path("a.yaml") + ":6:5");
  EXPECT_EQ(r->sources.at("flaky").file_line(), path("a.yaml") + ":23");
}

TEST_F(ConfigTest, EnumsAcceptNamesAndLowerCaseValues) {
  write("a.yaml", R"(test_config:
  a-single_device-inference: {status: known_failure_xfail, bringup_status: incorrect_result}
  b-single_device-inference: {status: NOT_SUPPORTED_SKIP, execution_pass: FORWARD}
)");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(c.find("a-single_device-inference")->status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(c.find("a-single_device-inference")->bringup_status, BringupStatus::IncorrectResult);
  EXPECT_EQ(c.find("b-single_device-inference")->status, TestStatus::NotSupportedSkip);
  EXPECT_EQ(*c.find("b-single_device-inference")->execution_pass, "FORWARD");
}

TEST_F(ConfigTest, MarkersMayBeOneString) {
  write("a.yaml", "test_config:\n  a-single_device-inference:\n    markers: weekly\n");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty());
  EXPECT_EQ(c.find("a-single_device-inference")->markers, std::vector<std::string>{"weekly"});
}

TEST_F(ConfigTest, FilesAreMergedRecursivelyInPathOrder) {
  std::filesystem::create_directories(dir / "sub");
  write("b.yaml", "test_config:\n  b-single_device-inference: {status: EXPECTED_PASSING}\n");
  write("sub/a.yml", "test_config:\n  a-single_device-inference: {status: EXPECTED_PASSING}\n");
  write("notes.txt", "not yaml: [\n");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.files, (std::vector<std::string>{path("b.yaml"), path("sub/a.yml")}));
}

TEST_F(ConfigTest, OneFileCanBeLoadedOnItsOwn) {
  write("a.yaml", "test_config:\n  a-single_device-inference: {status: EXPECTED_PASSING}\n");
  write("b.yaml", "test_config:\n  b-single_device-inference: {status: EXPECTED_PASSING}\n");
  const TestConfig c = load_test_config(path("a.yaml"), diags);
  EXPECT_EQ(c.entries.size(), 1u);
}

TEST_F(ConfigTest, EmptyFilesAndSectionsAreFine) {
  write("empty.yaml", "");
  write("comments.yaml", "# nothing yet\n");
  write("section.yaml", "test_config:\nPLACEHOLDER_MODELS:\n");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_TRUE(c.entries.empty());
}

TEST_F(ConfigTest, PlaceholdersDefaultToNotStarted) {
  write("placeholders.yaml", R"(PLACEHOLDER_MODELS:
  meta-llama/Llama-3.1-405B:
    reason: "needs a 32-chip mesh"
  deepseek-ai/DeepSeek-V3:
    bringup_status: FAILED_RUNTIME
  panoptic deeplab:
)");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  ASSERT_EQ(c.placeholders.size(), 3u);
  const Placeholder& llama = c.placeholders.at("placeholder/meta-llama/llama-3.1-405b");
  EXPECT_EQ(llama.name, "meta-llama/Llama-3.1-405B");
  EXPECT_EQ(llama.bringup(), BringupStatus::NotStarted);
  EXPECT_EQ(llama.entry.reason, "needs a 32-chip mesh");
  EXPECT_EQ(c.placeholders.at("placeholder/deepseek-ai/deepseek-v3").bringup(), BringupStatus::FailedRuntime);
  EXPECT_EQ(c.placeholders.count("placeholder/panoptic_deeplab"), 1u);
}

TEST_F(ConfigTest, AFileMayHoldBothSections) {
  write("a.yaml", R"(test_config:
  a-single_device-inference: {status: EXPECTED_PASSING}
PLACEHOLDER_MODELS:
  future_model: {reason: planned}
)");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.placeholders.size(), 1u);
}

TEST(TestStatusNames, AcceptNamesAndLowerCaseValues) {
  EXPECT_EQ(parse_status("NOT_SUPPORTED_SKIP"), TestStatus::NotSupportedSkip);
  EXPECT_EQ(parse_status("not_supported_skip"), TestStatus::NotSupportedSkip);
  EXPECT_EQ(parse_status("Not_Supported_Skip"), std::nullopt);
  EXPECT_EQ(parse_bringup("FAILED_TTMLIR_COMPILATION"), BringupStatus::FailedTtmlirCompilation);
}

TEST(PlaceholderIds, LowerCaseWithBlanksAsUnderscores) {
  EXPECT_EQ(placeholder_test_id("Qwen/Qwen2.5-VL-72B-Instruct"), "placeholder/qwen/qwen2.5-vl-72b-instruct");
  EXPECT_EQ(placeholder_test_id("panoptic deeplab"), "placeholder/panoptic_deeplab");
}

}  // namespace
}  // namespace meshtest::config
