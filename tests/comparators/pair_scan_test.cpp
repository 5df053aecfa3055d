// scan_pair against a plain f64 two-pass over the same elements, on inputs
// built to break an f32 shortcut: a mean far from the first element, blocks
// of one constant, elements on their allclose bound, values past f32's safe
// range for squares, tiny values, a NaN in one block, bf16 device values,
// and the largest |d - g| tied between blocks.
#include "comparators/pair_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/tensor.h"

namespace meshtest::comparators {
namespace {

// The figures by definition: f64, two passes, one element at a time.
PairStats reference(const std::vector<double>& d, const std::vector<double>& g, Tolerance tol) {
  PairStats s;
  s.n = static_cast<int64_t>(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    s.mean_d += d[i];
    s.mean_g += g[i];
  }
  s.mean_d /= static_cast<double>(s.n);
  s.mean_g /= static_cast<double>(s.n);
  for (size_t i = 0; i < d.size(); ++i) {
    const double dd = d[i] - s.mean_d, dg = g[i] - s.mean_g, diff = d[i] - g[i];
    s.m2_d += dd * dd;
    s.m2_g += dg * dg;
    s.c_dg += dd * dg;
    s.sq_diff += diff * diff;
    s.sq_d += d[i] * d[i];
    s.sq_g += g[i] * g[i];
    s.max_abs = std::max(s.max_abs, std::fabs(diff));
    s.max_g = std::max(s.max_g, std::fabs(g[i]));
    s.not_close += !(std::fabs(diff) <= tol.atol + tol.rtol * std::fabs(g[i]));
    s.not_equal += d[i] != g[i];
  }
  return s;
}

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[static_cast<size_t>(i)] = t.element_as_double(i);
  return out;
}

Tensor f32(const std::vector<float>& v) { return Tensor::from_f32({static_cast<int64_t>(v.size())}, v); }

// Sums within 2^-18 of the sum of their terms' magnitudes; the rest exact.
void expect_matches(const Tensor& device, const Tensor& golden, Tolerance tol) {
  const std::vector<double> d = as_doubles(device), g = as_doubles(golden);
  const PairStats want = reference(d, g, tol);
  const PairStats got = scan_pair(device, golden, tol);
  EXPECT_EQ(got.n, want.n);
  EXPECT_EQ(got.max_abs, want.max_abs);
  EXPECT_EQ(got.max_g, want.max_g);
  EXPECT_EQ(got.not_close, want.not_close);
  EXPECT_EQ(got.not_equal, want.not_equal);
  const double rel = 0x1p-18;
  EXPECT_NEAR(got.sq_d, want.sq_d, rel * want.sq_d);
  EXPECT_NEAR(got.sq_g, want.sq_g, rel * want.sq_g);
  EXPECT_NEAR(got.sq_diff, want.sq_diff, rel * want.sq_diff);
  EXPECT_NEAR(got.m2_d, want.m2_d, rel * want.m2_d);
  EXPECT_NEAR(got.m2_g, want.m2_g, rel * want.m2_g);
  EXPECT_NEAR(got.c_dg, want.c_dg, rel * std::sqrt(want.m2_d * want.m2_g));
  EXPECT_NEAR(got.mean_d, want.mean_d, rel * std::sqrt(want.sq_d / static_cast<double>(want.n)));
  EXPECT_NEAR(got.mean_g, want.mean_g, rel * std::sqrt(want.sq_g / static_cast<double>(want.n)));
}

std::vector<float> normal(size_t n, float mean, float stddev, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(PairScan, MeanFarFromTheFirstElement) {
  // The first block is zeros, the rest sits at 1000 with a spread of 0.01:
  // summing around one shift for the whole tensor would cancel 10^10 away.
  std::vector<float> g = normal(70000, 1000.0f, 0.01f, 1);
  std::fill(g.begin(), g.begin() + 512, 0.0f);
  std::vector<float> d = g;
  for (size_t i = 0; i < d.size(); i += 3) d[i] += 0.004f;
  expect_matches(f32(d), f32(g), {1e-2, 1e-2});
}

// A constant side has no spread at all (compare_tensors then judges by
// allclose), whatever the constant, including ones whose block sum rounds
// (306.399658: its mean comes back one ulp off).
TEST(PairScan, ConstantBlocksHaveNoSpread) {
  for (const float value : {0.1f, 0.7f, 1.0f / 3.0f, 123.456f, 306.399658f, -9.87654e-3f, 3.0e10f}) {
    const std::vector<float> c(5000, value);
    const PairStats s = scan_pair(f32(c), f32(c), {0, 0});
    EXPECT_EQ(s.m2_d, 0.0) << value;
    EXPECT_EQ(s.m2_g, 0.0) << value;
    EXPECT_EQ(s.not_equal, 0);
  }
}

// A whole tensor of tiny values (squares below f32's smallest normal) keeps
// its spread and correlation.
TEST(PairScan, ATensorOfTinyValuesKeepsItsSpread) {
  std::vector<float> g = normal(4096, 0.0f, 1e-25f, 6), d = g;
  for (size_t i = 0; i < d.size(); i += 2) d[i] *= 1.01f;
  expect_matches(f32(d), f32(g), {1e-2, 1e-30});
  EXPECT_GT(scan_pair(f32(d), f32(g), {1e-2, 1e-30}).m2_g, 0.0);
}

TEST(PairScan, ElementsOnTheirAllcloseBoundAreCountedExactly) {
  // |d - g| = atol + rtol |g| up to the last bits, on both sides of it.
  std::vector<float> g = normal(4096, 0.0f, 1.0f, 2), d(g.size());
  const double rtol = 1e-3, atol = 1e-4;
  for (size_t i = 0; i < g.size(); ++i) {
    const double bound = atol + rtol * std::fabs(static_cast<double>(g[i]));
    float v = static_cast<float>(static_cast<double>(g[i]) + bound);
    for (int step = static_cast<int>(i % 5) - 2; step > 0; --step) v = std::nextafter(v, INFINITY);
    for (int step = static_cast<int>(i % 5) - 2; step < 0; ++step) v = std::nextafter(v, -INFINITY);
    d[i] = v;
  }
  expect_matches(f32(d), f32(g), {rtol, atol});
}

TEST(PairScan, ValuesOutsideF32SquaresRangeAreSummedInF64) {
  std::vector<float> g = normal(2048, 0.0f, 1.0f, 3), d = g;
  g[700] = 3e30f;  // its square is past f32's largest value
  d[700] = 2e30f;
  for (size_t i = 1536; i < 2048; ++i) {  // a wildly wrong block: a constant 1e20 against zeros (its squared
    d[i] = 1e20f;                           // difference is past f32's range although neither side varies)
    g[i] = 0.0f;
  }
  for (size_t i = 1024; i < 1536; ++i) {  // a block of tiny values: squares below f32's smallest normal
    g[i] = 1e-25f * static_cast<float>(i % 7 + 1);
    d[i] = g[i] * 1.01f;
  }
  expect_matches(f32(d), f32(g), {1e-2, 1e-2});
  const PairStats s = scan_pair(f32(d), f32(g), {1e-2, 1e-2});
  EXPECT_TRUE(std::isfinite(s.sq_g));
}

TEST(PairScan, ANanInOneBlockMakesTheSumsNonFinite) {
  std::vector<float> g = normal(3000, 0.0f, 1.0f, 4), d = g;
  d[1500] = std::numeric_limits<float>::quiet_NaN();
  const PairStats s = scan_pair(f32(d), f32(g), {1e-2, 1e-2});
  EXPECT_FALSE(std::isfinite(s.sq_d + s.m2_d));
  EXPECT_EQ(s.max_abs, scan_pair(f32(g), f32(g), {1e-2, 1e-2}).max_abs);  // 0: the NaN is not a "largest" difference
}

TEST(PairScan, Bf16DeviceValuesAreComparedAsTheirF32Values) {
  const std::vector<float> g = normal(10000, 0.5f, 2.0f, 5);
  const Tensor device = f32(g).to(DType::BF16);
  expect_matches(device, f32(g), {1e-2, 1e-3});
}

TEST(PairScan, TheLargestDifferenceIsExactWhenBlocksTieInF32) {
  // Two blocks whose largest |d - g| round to one f32 value but differ in f64.
  std::vector<float> g(2048, 1.0f), d(2048, 1.0f);
  d[100] = 1.0f + 0x1p-23f;
  g[100] = 0x1p-30f;
  d[1200] = 1.0f + 0x1p-23f;
  g[1200] = 0x1p-31f;
  expect_matches(f32(d), f32(g), {0, 0});
}

TEST(PairScan, RandomShapesMatchTheDefinition) {
  for (unsigned seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed);
    const size_t n = 1 + rng() % 200000;
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20);
    std::vector<float> g = normal(n, scale * static_cast<float>(rng() % 5), scale, seed), d = g;
    for (size_t i = 0; i < n; i += 1 + rng() % 7) d[i] += scale * 1e-3f * static_cast<float>(static_cast<int>(rng() % 9) - 4);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
    expect_matches(f32(d), f32(g), {1e-2, 1e-3 * scale});
  }
}

}  // namespace
}  // namespace meshtest::comparators
