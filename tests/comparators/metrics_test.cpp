// PCC / atol / allclose edge cases and the verdict of enabled checks.
#include "comparators/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"

#include "core/rng.h"

namespace meshtest::comparators {
namespace {

Tensor t(std::vector<float> v) { return Tensor::from_f32({static_cast<int64_t>(v.size())}, v); }

TEST(Pcc, IdenticalTensorsScoreOne) {
  const Tensor a = random_normal({1000}, 1);
  const OutputMetrics m = compare_tensors("out", a, a, {});
  EXPECT_DOUBLE_EQ(m.pcc, 1.0);
  EXPECT_TRUE(m.passed);
  EXPECT_TRUE(m.equal);
  EXPECT_EQ(m.atol, 0.0);
}

TEST(Pcc, KnownValueForLinearlyRelatedButNotCloseData) {
  // device = 2*golden + 5: perfectly correlated, far from allclose.
  const OutputMetrics m = compare_tensors("out", t({7, 9, 11, 13}), t({1, 2, 3, 4}), {});
  EXPECT_NEAR(m.pcc, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(m.atol, 9.0);
  EXPECT_FALSE(m.allclose);
}

TEST(Pcc, AntiCorrelatedIsMinusOneAndFails) {
  const OutputMetrics m = compare_tensors("logits", t({4, 3, 2, 1}), t({1, 2, 3, 4}), {});
  EXPECT_NEAR(m.pcc, -1.0, 1e-12);
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("output 'logits'"), std::string::npos);
  EXPECT_NE(m.failure.find("PCC"), std::string::npos);
}

TEST(Pcc, HandComputedValue) {
  // x = [1,2,3], y = [1,3,2]: cov = 0.5*... -> r = 0.5 exactly.
  const OutputMetrics m = compare_tensors("o", t({1, 3, 2}), t({1, 2, 3}), {});
  EXPECT_NEAR(m.pcc, 0.5, 1e-12);
}

TEST(Pcc, NanAnywhereFailsWithCounts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const OutputMetrics m = compare_tensors("o", t({1, nan, 3}), t({1, 2, 3}), {});
  EXPECT_FALSE(m.passed);
  EXPECT_FALSE(m.finite);
  EXPECT_NE(m.failure.find("1 NaN"), std::string::npos);
  // A NaN must not hide behind a minimum over outputs.
  const Verdict v = compare_outputs({"a", "b"}, {t({1, 2}), t({1, nan})}, {t({1, 2}), t({1, 2})}, {});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.min_pcc, 0.0);
}

TEST(Pcc, InfInGoldenFails) {
  const float inf = std::numeric_limits<float>::infinity();
  const OutputMetrics m = compare_tensors("o", t({1, 2}), t({1, inf}), {});
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("golden: 0 NaN, 1 inf"), std::string::npos);
}

TEST(Pcc, ConstantTensors) {
  EXPECT_DOUBLE_EQ(compare_tensors("o", t({2, 2, 2}), t({2, 2, 2}), {}).pcc, 1.0);
  // Far apart constants: PCC undefined -> 0 (not equal).
  const OutputMetrics m = compare_tensors("o", t({5, 5, 5}), t({2, 2, 2}), {});
  EXPECT_DOUBLE_EQ(m.pcc, 0.0);
  EXPECT_FALSE(m.passed);
  // One side constant, the other not.
  EXPECT_DOUBLE_EQ(compare_tensors("o", t({5, 5, 5}), t({1, 2, 3}), {}).pcc, 0.0);
}

TEST(Pcc, SingleElementAndEmpty) {
  // Constant tensors: PCC is undefined, allclose decides (1 or 0).
  EXPECT_DOUBLE_EQ(compare_tensors("o", t({1.001f}), t({1.0f}), {}).pcc, 1.0);
  EXPECT_DOUBLE_EQ(compare_tensors("o", t({3.0f}), t({1.0f}), {}).pcc, 0.0);
  const Tensor empty(DType::F32, {0, 4});
  const OutputMetrics m = compare_tensors("o", empty, empty, {});
  EXPECT_TRUE(m.passed);
  EXPECT_DOUBLE_EQ(m.pcc, 1.0);
}

TEST(Pcc, ShapeMismatchNamesBothShapes) {
  const OutputMetrics m = compare_tensors("o", Tensor(DType::F32, {2, 3}), Tensor(DType::F32, {3, 2}), {});
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("[2,3]"), std::string::npos);
  EXPECT_NE(m.failure.find("[3,2]"), std::string::npos);
}

TEST(Checks, AtolAndAllcloseOnlyWhenEnabled) {
  ComparisonConfig c;
  c.assert_pcc = false;
  c.assert_scale = false;  // the scale check on its own: Scale.*
  const Tensor golden = t({0, 1, 2, 3});
  const Tensor device = t({0, 1, 2, 3.5});
  EXPECT_TRUE(compare_tensors("o", device, golden, c).passed);
  c.assert_atol = true;
  c.required_atol = 0.16;
  OutputMetrics m = compare_tensors("o", device, golden, c);
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("atol"), std::string::npos);
  c.assert_atol = false;
  c.assert_allclose = true;
  m = compare_tensors("o", device, golden, c);
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("1 of 4 elements"), std::string::npos);
}

// A trained 2-class classifier's probabilities: the PCC of 2 elements is
// always +-1, so a device 0.02 off passes PCC (and the scale check, 1.4%);
// under kMinPccElements allclose decides, and the record says so.
TEST(SmallOutputs, TwoElementsAreJudgedByAllcloseNotPcc) {
  const Tensor golden = t({0.69f, 0.31f});
  const OutputMetrics off = compare_tensors("probs", t({0.71f, 0.29f}), golden, {});
  EXPECT_NEAR(off.pcc, 1.0, 1e-12);  // what PCC alone would pass
  EXPECT_LT(std::fabs(off.norm_ratio - 1.0), kDefaultScaleTolerance);
  EXPECT_TRUE(off.few_elements);
  EXPECT_FALSE(off.passed);
  EXPECT_EQ(off.decided_by, "allclose+scale");
  EXPECT_NE(off.failure.find("allclose(rtol=0.01, atol=0.01) fails on 2 of 2 elements (under 8 elements allclose "
                             "judges, not PCC 1)"),
            std::string::npos)
      << off.failure;
  const OutputMetrics close = compare_tensors("probs", t({0.6914f, 0.3086f}), golden, {});  // bf16-sized error
  EXPECT_TRUE(close.passed) << close.failure;
  EXPECT_EQ(close.decided_by, "allclose+scale");
  // An entry that asserts atol is judged by it (and not also by allclose).
  ComparisonConfig atol;
  atol.assert_atol = true;
  atol.required_atol = 0.01;
  const OutputMetrics by_atol = compare_tensors("probs", t({0.71f, 0.29f}), golden, atol);
  EXPECT_EQ(by_atol.decided_by, "atol+scale");
  EXPECT_FALSE(by_atol.passed);
  EXPECT_NE(by_atol.failure.find("max |diff|"), std::string::npos) << by_atol.failure;
}

TEST(SmallOutputs, FromEightElementsPccDecides) {
  static_assert(kMinPccElements == 8);
  const Tensor golden = random_normal({kMinPccElements}, 5);
  const OutputMetrics m = compare_tensors("o", golden, golden, {});
  EXPECT_FALSE(m.few_elements);
  EXPECT_EQ(m.decided_by, "pcc+scale");
  ComparisonConfig everything;
  everything.assert_atol = everything.assert_allclose = true;
  EXPECT_EQ(compare_tensors("o", golden, golden, everything).decided_by, "pcc+atol+allclose+scale");
  EXPECT_EQ(compare_tensors("o", t({1, 2}), t({1, 2, 3}), {}).decided_by, "shape");
}

// A small output's PCC is recorded, not counted in the case's PCC.
TEST(SmallOutputs, LeftOutOfTheCasePcc) {
  const Tensor big = random_normal({64}, 6);
  const Tensor big_device = big.to(DType::BF16).to(DType::F32);
  // [0.5, 0.5001] against [0.5001, 0.5]: allclose, PCC -1.
  const Verdict both = compare_outputs({"logits", "pair"}, {big_device, t({0.5f, 0.5001f})},
                                       {big, t({0.5001f, 0.5f})}, {});
  EXPECT_TRUE(both.passed) << both.message;
  ASSERT_EQ(both.outputs.size(), 2u);
  EXPECT_NEAR(both.outputs[1].pcc, -1.0, 1e-6);
  EXPECT_DOUBLE_EQ(both.min_pcc, both.outputs[0].pcc);
  const Verdict only_small = compare_outputs({"pair"}, {t({0.5f, 0.5001f})}, {t({0.5001f, 0.5f})}, {});
  EXPECT_TRUE(only_small.passed);
  EXPECT_TRUE(std::isnan(only_small.min_pcc));  // no PCC judged: "-", not a made-up 1
}

TEST(Pcc, BfloatRoundedCopyOfLargeTensorStaysAboveThreshold) {
  const Tensor golden = random_normal({1 << 20}, 7);
  const Tensor device = golden.to(DType::BF16).to(DType::F32);
  // Always the computed PCC, never a short-cut 1 for near-identical tensors.
  const OutputMetrics m = compare_tensors("o", device, golden, {});
  EXPECT_GT(m.pcc, 0.99999);
  EXPECT_LT(m.pcc, 1.0);
  EXPECT_TRUE(m.passed) << m.failure;
  EXPECT_NEAR(m.norm_ratio, 1.0, 1e-3);  // bf16 rounding keeps the scale
}

TEST(Scale, AnOutputOffByAFactorFailsThoughItsPccIsOne) {
  const Tensor golden = random_normal({4096}, 11);
  std::vector<float> scaled = golden.to_f32_vector();
  for (float& v : scaled) v *= 1.05f;
  const Tensor device = Tensor::from_f32(golden.shape(), scaled);
  OutputMetrics m = compare_tensors("logits", device, golden, {});
  EXPECT_GT(m.pcc, 0.999999);
  EXPECT_NEAR(m.norm_ratio, 1.05, 1e-6);
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.failure.find("L2 norm 1.05x the golden's (allowed 1 +- 0.02"), std::string::npos) << m.failure;
  ComparisonConfig loose;
  loose.scale_tolerance = 0.06;  // YAML scale_tolerance
  EXPECT_TRUE(compare_tensors("logits", device, golden, loose).passed);
  ComparisonConfig off;
  off.assert_scale = false;  // YAML assert_scale: false
  EXPECT_TRUE(compare_tensors("logits", device, golden, off).passed);
}

// 10^8 elements: an f32 accumulation would lose the PCC of near-identical
// tensors; the f64 chunked sums keep it exact enough to see a 1e-6 offset.
TEST(Pcc, HundredMillionElementsInF64) {
  const int64_t n = 100'000'000;
  Tensor golden(DType::F32, {n});
  Tensor device(DType::F32, {n});
  float* g = golden.data<float>();
  float* d = device.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    g[i] = static_cast<float>(1000.0 + (i % 1000) * 0.01);
    d[i] = g[i] + ((i % 2) ? 0.3f : -0.3f);
  }
  const OutputMetrics m = compare_tensors("o", device, golden, {});
  // Expected: var(g) = 0.01^2 * (1000^2-1)/12 ~ 8.333; noise var 0.09 -> r = sqrt(8.333/(8.333+0.09)).
  const double var_g = 0.0001 * (1000.0 * 1000.0 - 1.0) / 12.0;
  EXPECT_NEAR(m.pcc, std::sqrt(var_g / (var_g + 0.09)), 2e-4);
  EXPECT_NEAR(m.atol, 0.3, 1e-3);
}

// The one-read scan merges per-chunk means and centred sums: on data whose
// mean dwarfs its spread, across many chunks and a ragged tail, PCC, norm
// ratio and rel-L2 match a long-double two-pass reference; a merge that
// dropped the between-chunk term would be far off.
TEST(Pcc, ChunkMergeMatchesATwoPassReference) {
  const int64_t n = 3 * 65536 + 13;
  Tensor golden(DType::F32, {n});
  Tensor device(DType::F32, {n});
  float* g = golden.data<float>();
  float* d = device.data<float>();
  const Tensor noise = random_normal({n}, 17);
  for (int64_t i = 0; i < n; ++i) {
    g[i] = static_cast<float>(5000.0 + i / 2000.0);  // a trend: every chunk has its own mean
    d[i] = g[i] + 0.05f * noise.data<float>()[i];
  }
  long double mg = 0, md = 0;
  for (int64_t i = 0; i < n; ++i) {
    mg += g[i];
    md += d[i];
  }
  mg /= n;
  md /= n;
  long double gg = 0, dd = 0, dg = 0, sq_g = 0, sq_d = 0, sq_diff = 0;
  for (int64_t i = 0; i < n; ++i) {
    const long double a = d[i] - md, b = g[i] - mg;
    dd += a * a;
    gg += b * b;
    dg += a * b;
    sq_g += static_cast<long double>(g[i]) * g[i];
    sq_d += static_cast<long double>(d[i]) * d[i];
    sq_diff += static_cast<long double>(d[i] - g[i]) * (d[i] - g[i]);
  }
  const OutputMetrics m = compare_tensors("o", device, golden, {});
  EXPECT_NEAR(m.pcc, static_cast<double>(dg / std::sqrt(dd * gg)), 1e-12);
  EXPECT_NEAR(m.norm_ratio, static_cast<double>(std::sqrt(sq_d / sq_g)), 1e-12);
  EXPECT_NEAR(m.rel_l2, static_cast<double>(std::sqrt(sq_diff / sq_g)), 1e-12);
  EXPECT_LT(m.pcc, 1.0);
}

// A NaN in the last, ragged chunk is counted exactly however the sums saw it.
TEST(Pcc, NonFiniteInARaggedLastChunkIsCounted) {
  const int64_t n = 2 * 65536 + 3;
  Tensor golden = random_normal({n}, 3);
  Tensor device = random_normal({n}, 3);
  device.data<float>()[n - 1] = NAN;
  device.data<float>()[70000] = INFINITY;
  golden.data<float>()[5] = -INFINITY;
  const OutputMetrics m = compare_tensors("o", device, golden, {});
  EXPECT_FALSE(m.passed);
  EXPECT_FALSE(m.finite);
  EXPECT_NE(m.failure.find("device: 1 NaN, 1 inf; golden: 0 NaN, 1 inf"), std::string::npos) << m.failure;
}

// The elementwise ulp bound: round-to-nearest of the reference is within half
// an ulp, truncation within one, and tanh-GELU for erf-GELU is far out where
// gelu's result is small; tiny values are held to the tensor's scale.
TEST(BfloatUlp, RoundingIsHalfAnUlpAWrongFormulaIsMany) {
  std::vector<float> x, erf_form, tanh_form, rounded, truncated;
  for (int i = -400; i <= 400; ++i) {
    const float v = static_cast<float>(i) / 100.0f;
    x.push_back(v);
    erf_form.push_back(0.5f * v * (1.0f + std::erf(v * 0.70710678f)));
    const float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    tanh_form.push_back(0.5f * v * (1.0f + std::tanh(inner)));
    rounded.push_back(round_to_bf16(erf_form.back()));
    uint32_t bits;
    std::memcpy(&bits, &erf_form.back(), 4);
    bits &= 0xFFFF0000u;
    float cut;
    std::memcpy(&cut, &bits, 4);
    truncated.push_back(cut);
  }
  EXPECT_LE(max_bf16_ulp_error(t(rounded), t(erf_form)), 0.5);
  EXPECT_GT(max_bf16_ulp_error(t(truncated), t(erf_form)), 0.5);
  EXPECT_LT(max_bf16_ulp_error(t(truncated), t(erf_form)), 1.0);
  // PCC cannot tell the two forms apart; the ulp bound can.
  EXPECT_GT(compare_tensors("gelu", t(tanh_form), t(erf_form), {}).pcc, 0.99999);
  EXPECT_GT(max_bf16_ulp_error(t(tanh_form), t(erf_form)), 50.0);  // 93 at x = -4
  // An f32 formula that cancels far below the tensor's scale stays within bounds.
  EXPECT_LE(max_bf16_ulp_error(t({4.0f, 1e-9f}), t({4.0f, 2e-9f})), 0.5);
  EXPECT_EQ(max_bf16_ulp_error(t({}), t({})), 0.0);
  EXPECT_TRUE(std::isinf(max_bf16_ulp_error(t({std::nanf("")}), t({1.0f}))));
  EXPECT_THROW(max_bf16_ulp_error(t({1.0f}), t({1.0f, 2.0f})), Error);
}

}  // namespace
// How a bf16 result's errors are spread: round-to-nearest of continuous
// values has a mean |error| of 0.25 ulp and no bias; a result 0.1% low (a
// fast rsqrt) is biased by a sizeable part of an ulp although every element
// is within an ulp; a 0.3% wobble on every element (an approximate exp)
// raises the mean |error| while its bias stays small.
TEST(BfloatUlp, StatisticsSeeABiasAndAddedNoiseThatTheMaximumCannot) {
  std::vector<float> reference, rounded, low, wobbly;
  for (int i = 0; i < 20000; ++i) {
    const float v = std::sin(0.37f * static_cast<float>(i)) * std::exp(std::cos(0.011f * static_cast<float>(i)));
    reference.push_back(v);
    rounded.push_back(round_to_bf16(v));
    low.push_back(round_to_bf16(v * 0.999f));
    wobbly.push_back(round_to_bf16(v * (1.0f + 0.003f * std::sin(1.7f * static_cast<float>(i)))));
  }
  const Bf16UlpStats honest = bf16_ulp_stats(t(rounded), t(reference));
  EXPECT_LE(honest.max, 0.5);
  EXPECT_NEAR(honest.mean_abs, 0.25, 0.02);
  EXPECT_LT(std::abs(honest.bias), 0.02);
  EXPECT_GT(honest.counted, 19000);
  const Bf16UlpStats biased = bf16_ulp_stats(t(low), t(reference));
  EXPECT_LT(biased.max, 1.0);   // every element within an ulp: the maximum cannot tell
  EXPECT_LT(biased.bias, -0.1);  // the mean can
  const Bf16UlpStats noisy = bf16_ulp_stats(t(wobbly), t(reference));
  EXPECT_GT(noisy.mean_abs, 0.3);
  EXPECT_LT(std::abs(noisy.bias), 0.05);
  EXPECT_TRUE(std::isinf(bf16_ulp_stats(t({std::nanf("")}), t({1.0f})).mean_abs));
}

// A bf16 device result beside an f32 golden (read as its bits, a block at a
// time) compares as its f32 form does (to the last bits of the f64 sums'
// order), NaN included.
TEST(CompareTensors, ABf16DeviceResultComparesAsItsF32Form) {
  Tensor golden(DType::F32, {3, 70001});
  for (int64_t i = 0; i < golden.numel(); ++i) golden.data<float>()[i] = std::cos(0.013f * static_cast<float>(i)) + 2.0f;
  Tensor device = golden.to(DType::BF16);
  for (const bool nan : {false, true}) {
    if (nan) device.data<uint16_t>()[5] = 0x7fc0;
    const OutputMetrics direct = compare_tensors("y", device, golden, ComparisonConfig{});
    const OutputMetrics widened = compare_tensors("y", device.to(DType::F32), golden, ComparisonConfig{});
    EXPECT_NEAR(direct.pcc, widened.pcc, 1e-12);
    EXPECT_EQ(direct.atol, widened.atol);
    EXPECT_NEAR(direct.norm_ratio, widened.norm_ratio, 1e-12);
    EXPECT_EQ(direct.allclose, widened.allclose);
    EXPECT_EQ(direct.passed, widened.passed);
    EXPECT_EQ(direct.failure, widened.failure);
    EXPECT_EQ(direct.finite, !nan);
  }
}

// The ulp figures of a pair just compared (its finiteness and largest
// |reference| from compare_tensors) are those of the pair read afresh.
TEST(BfloatUlp, FiguresFromAComparisonAreThoseReadAfresh) {
  std::vector<float> reference, device;
  for (int i = 0; i < 5000; ++i) {
    const float v = 3.0f * std::sin(0.29f * static_cast<float>(i)) - (i == 4321 ? 40.0f : 0.0f);
    reference.push_back(v);
    device.push_back(round_to_bf16(v * 1.002f));
  }
  const std::vector<std::pair<std::vector<float>, std::vector<float>>> pairs{
      {device, reference}, {{0.0f, 1.0f}, {0.0f, 0.0f}}, {{1.0f, std::nanf("")}, {1.0f, 2.0f}}, {{}, {}}};
  for (const auto& [d, r] : pairs) {
    const OutputMetrics compared = compare_tensors("x", t(d), t(r), ComparisonConfig{});
    const Bf16UlpStats afresh = bf16_ulp_stats(t(d), t(r)), reused = bf16_ulp_stats(t(d), t(r), compared);
    EXPECT_EQ(afresh.max, reused.max) << d.size() << " elements";
    EXPECT_EQ(afresh.mean_abs, reused.mean_abs);
    EXPECT_EQ(afresh.bias, reused.bias);
    EXPECT_EQ(afresh.counted, reused.counted);
  }
}

}  // namespace meshtest::comparators

namespace meshtest::comparators {
// The ulp figures, read in f32 lanes, against their definition in f64 on
// every element: results with a near-zero stretch (under the floor: counted
// out of the means), negative zeros, a block with a wildly wrong element
// (past f32's range in ulp) and a tail that is not a whole block.
TEST(BfloatUlp, FiguresAreTheirDefinition) {
  std::vector<float> reference, device;
  for (int i = 0; i < 9000; ++i) {
    float v = 2.0f * std::sin(0.031f * static_cast<float>(i)) + (i % 97 == 0 ? 7.0f : 0.0f);
    if (i >= 2000 && i < 2600) v *= 1e-7f;  // below largest * 2^-16
    if (i == 3000) v = -0.0f;
    reference.push_back(v);
    device.push_back(round_to_bf16(v * (1.0f + 0.004f * std::cos(1.3f * static_cast<float>(i)))));
  }
  device[7000] = 3e38f;
  reference[7000] = 1e-30f;
  double largest = 0.0;
  for (float v : reference) largest = std::max(largest, std::fabs(static_cast<double>(v)));
  const double floor = largest * 0x1p-16;
  double worst = 0.0, sum_abs = 0.0, sum_bias = 0.0;
  int64_t counted = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double r = reference[i], size = std::max(std::fabs(r), floor);
    const double error = (static_cast<double>(device[i]) - r) / std::ldexp(1.0, std::ilogb(size) - 7);
    worst = std::max(worst, std::fabs(error));
    if (std::fabs(r) >= floor) {
      sum_abs += std::fabs(error);
      sum_bias += std::copysign(1.0, r) * error;
      ++counted;
    }
  }
  const Bf16UlpStats s = bf16_ulp_stats(t(device), t(reference));
  EXPECT_EQ(s.counted, counted);
  EXPECT_NEAR(s.max, worst, 1e-6 * worst);
  EXPECT_NEAR(s.mean_abs, sum_abs / static_cast<double>(counted), 1e-6 * s.mean_abs);
  EXPECT_NEAR(s.bias, sum_bias / static_cast<double>(counted), 1e-6 * s.mean_abs);
}
}  // namespace meshtest::comparators
