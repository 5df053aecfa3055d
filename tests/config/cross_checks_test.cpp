// Checks against discovery: stale ids with the nearest real id, placeholders
// that duplicate a discovered model; and the edit distance behind them.
#include "config/cross_checks.h"

#include <gtest/gtest.h>

#include "config/nearest_name.h"
#include "config_fixture.h"

namespace meshtest::config {
namespace {

using CrossChecks = ConfigDirTest;

const std::vector<std::string> kIds = {"resnet/native-resnet50-single_device-inference",
                                       "resnet/native-resnet18-single_device-inference",
                                       "bert/masked_lm/native-bert_base-single_device-inference"};

TEST_F(CrossChecks, StaleIdNamesTheNearestRealId) {
  write("a.yaml", "test_config:\n  resnet/native-resnet50-single_device-inference: {}\n"
                  "  resnet/native-resnet05-single_device-inference: {}\n");
  const TestConfig c = load();
  std::vector<Diagnostic> out;
  check_stale_ids(c, kIds, Severity::Error, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_string(), path("a.yaml") + ":3:3: test id 'resnet/native-resnet05-single_device-inference' "
                                                 "matches no discovered case (nearest: "
                                                 "'resnet/native-resnet50-single_device-inference')");
}

TEST_F(CrossChecks, StaleIdsAsWarnings) {
  write("a.yaml", "test_config:\n  gone-single_device-inference: {}\n");
  const TestConfig c = load();
  std::vector<Diagnostic> out;
  check_stale_ids(c, {}, Severity::Warning, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_string(),
            path("a.yaml") + ":2:3: warning: test id 'gone-single_device-inference' matches no discovered case");
}

TEST_F(CrossChecks, PlaceholderDuplicatingADiscoveredModel) {
  write("p.yaml", "PLACEHOLDER_MODELS:\n  microsoft/ResNet-50:\n  Llama 3.1 405B:\n  BERT:\n");
  const TestConfig c = load();
  std::vector<Diagnostic> out;
  check_placeholders(c, {{"resnet/native", "resnet", "resnet50"}, {"bert/masked_lm/native", "bert", "bert_base"}},
                     Severity::Error, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].to_string(), path("p.yaml") + ":4:3: placeholder 'BERT' duplicates the discovered model "
                                                 "'bert/masked_lm/native-bert_base'; remove the placeholder now that "
                                                 "the model has a loader");
  EXPECT_EQ(out[1].to_string(), path("p.yaml") + ":2:3: placeholder 'microsoft/ResNet-50' duplicates the discovered "
                                                 "model 'resnet/native-resnet50'; remove the placeholder now that the "
                                                 "model has a loader");
}

TEST(NearestName, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(edit_distance("status", "status"), 0u);
  EXPECT_EQ(edit_distance("stauts", "status"), 1u);
  EXPECT_EQ(edit_distance("statu", "status"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(NearestName, DidYouMeanNeedsACloseName) {
  const std::vector<std::string> names = {"status", "reason", "required_pcc"};
  EXPECT_EQ(did_you_mean("statsu", names), "status");
  EXPECT_EQ(did_you_mean("xyz", names), std::nullopt);
  EXPECT_EQ(nearest_name("xyz", names), "status");
  EXPECT_EQ(nearest_name("x", {}), std::nullopt);
}

}  // namespace
}  // namespace meshtest::config
