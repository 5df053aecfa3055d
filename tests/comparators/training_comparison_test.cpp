// The training comparison policy on its own: one check per gradient, the
// gradient sets must agree, a wrong or scaled gradient is named, vanishing
// gradients are judged by magnitude, updated weights after a step.
#include "comparators/training_comparison.h"

#include <gtest/gtest.h>

#include "core/rng.h"

namespace meshtest::comparators {
namespace {

// A training result whose parameters `with` have a gradient.
TrainingTensors golden_of(std::vector<std::string> with) {
  TrainingTensors g;
  g.forward = random_normal({4, 4}, 1);
  for (size_t i = 0; i < with.size(); ++i) g.gradients.push_back(random_normal({8}, 10 + i));
  g.with_gradient = std::move(with);
  return g;
}

TrainingVerdict compare(const TrainingTensors& golden, const TrainingTensors& device) {
  return compare_training("out", golden, device, {});
}

TEST(CompareTraining, IdenticalResultsPassWithOneRecordPerGradient) {
  const auto golden = golden_of({"a", "b"});
  const TrainingVerdict t = compare(golden, golden);
  EXPECT_TRUE(t.passed) << t.message;
  ASSERT_EQ(t.checks.size(), 3u);
  EXPECT_EQ(t.checks[1].kind, "gradient");
  EXPECT_EQ(t.checks[2].name, "b");
  EXPECT_DOUBLE_EQ(t.min_pcc, 1.0);
}

TEST(CompareTraining, DifferentGradientSetsFailNamingTheParameters) {
  const auto golden = golden_of({"a", "b"});
  TrainingTensors device = golden_of({"a", "c"});
  device.gradients[0] = golden.gradients[0];
  const TrainingVerdict t = compare(golden, device);
  EXPECT_FALSE(t.passed);
  EXPECT_EQ(t.failed_pass, "BACKWARD");
  EXPECT_EQ(t.message,
            "parameters without a gradient differ: only the device gives none to b; only the golden gives none to c");
  ASSERT_EQ(t.checks.size(), 2u);  // the output and `a`, the gradient both sides have
  EXPECT_TRUE(t.checks[1].passed);
}

TEST(CompareTraining, AWrongGradientIsNamed) {
  const auto golden = golden_of({"layer1.0.conv1.weight"});
  TrainingTensors device = golden;
  device.gradients[0] = random_normal({8}, 99);
  const TrainingVerdict t = compare(golden, device);
  EXPECT_FALSE(t.passed);
  EXPECT_EQ(t.message.rfind("gradient of layer1.0.conv1.weight: PCC ", 0), 0u) << t.message;
  EXPECT_EQ(t.failed_pass, "BACKWARD");
}

Tensor scaled(const Tensor& t, float factor) {
  std::vector<float> v = t.to_f32_vector();
  for (float& x : v) x *= factor;
  return Tensor::from_f32(t.shape(), v);
}

TEST(CompareTraining, VanishingGradientsAreJudgedByMagnitudeNotPcc) {
  auto golden = golden_of({"query.bias", "key.bias"});
  golden.gradients[1] = scaled(random_normal({8}, 3), 1e-9f);  // zero up to f32 rounding
  TrainingTensors device = golden;
  device.gradients[1] = scaled(random_normal({8}, 4), 1e-5f);  // bf16 rounding noise, uncorrelated
  const TrainingVerdict noise = compare(golden, device);
  EXPECT_TRUE(noise.passed) << noise.message;
  ASSERT_EQ(noise.checks.size(), 3u);
  EXPECT_TRUE(noise.checks[2].passed);
  EXPECT_DOUBLE_EQ(noise.min_pcc, 1.0);  // the noise's PCC is recorded, not judged
  device.gradients[1] = scaled(random_normal({8}, 4), 0.1f);  // a real, wrong gradient
  const TrainingVerdict wrong = compare(golden, device);
  EXPECT_FALSE(wrong.passed);
  EXPECT_EQ(wrong.message.rfind("gradient of key.bias: zero in the golden (max |g| ", 0), 0u) << wrong.message;
  EXPECT_EQ(wrong.checks[1].decided_by, "pcc+scale");
  EXPECT_EQ(wrong.checks[2].decided_by, "magnitude");
}

// A 2-element gradient (a 2-class head's bias) is judged by allclose: PCC
// is +-1 for any 2 values, and a wrong one stays out of the case's PCC.
TEST(CompareTraining, ATwoElementGradientIsJudgedByAllclose) {
  auto golden = golden_of({"fc.weight", "fc.bias"});
  golden.gradients[1] = Tensor::from_f32({2}, {0.8f, -0.4f});
  TrainingTensors device = golden;
  device.gradients[1] = Tensor::from_f32({2}, {0.85f, -0.35f});  // PCC 1, norm within 20%
  const TrainingVerdict t = compare(golden, device);
  EXPECT_FALSE(t.passed);
  EXPECT_EQ(t.message.rfind("gradient of fc.bias: allclose(", 0), 0u) << t.message;
  EXPECT_EQ(t.checks[2].decided_by, "allclose+scale");
  EXPECT_DOUBLE_EQ(t.min_pcc, 1.0);  // the output and fc.weight
}

TEST(CompareTraining, AScaledGradientFailsAlthoughItsPccIsPerfect) {
  const auto golden = golden_of({"fc.weight"});
  TrainingTensors device = golden;
  device.gradients[0] = scaled(golden.gradients[0], 1.5f);  // what a VJP rule off by a factor gives
  const TrainingVerdict wrong = compare(golden, device);
  EXPECT_FALSE(wrong.passed);
  EXPECT_DOUBLE_EQ(wrong.min_pcc, 1.0);
  EXPECT_EQ(wrong.message, "gradient of fc.weight: L2 norm 1.5x the golden's (allowed 1 +- 0.2; PCC cannot see a scale error)");
  EXPECT_EQ(wrong.failed_pass, "BACKWARD");
  device.gradients[0] = scaled(golden.gradients[0], 1.05f);  // within what bf16 noise does
  EXPECT_TRUE(compare(golden, device).passed);
}

TEST(CompareTraining, AWeightTheStepDidNotMoveIsNamed) {
  const auto golden = golden_of({"fc.weight"});
  const Tensor weight = random_normal({8}, 50);
  const double lr = 10.0;  // the step dominates the weight
  std::vector<float> stepped = weight.to_f32_vector();
  const std::vector<float> g = golden.gradients[0].to_f32_vector();
  for (size_t k = 0; k < stepped.size(); ++k) stepped[k] -= static_cast<float>(lr) * g[k];
  TrainingTensors golden_stepped = golden;
  golden_stepped.updated = {Tensor::from_f32({8}, stepped)};
  TrainingTensors device = golden_stepped;
  const TrainingVerdict ok = compare(golden_stepped, device);
  EXPECT_TRUE(ok.passed) << ok.message;
  ASSERT_EQ(ok.checks.size(), 3u);
  EXPECT_EQ(ok.checks[2].kind, "updated_weight");
  device.updated = {weight};  // the device skipped the update
  const TrainingVerdict missed = compare(golden_stepped, device);
  EXPECT_FALSE(missed.passed);
  EXPECT_EQ(missed.message.rfind("updated weight of fc.weight: PCC ", 0), 0u) << missed.message;
  EXPECT_EQ(missed.failed_pass, "BACKWARD");
}

}  // namespace
}  // namespace meshtest::comparators
