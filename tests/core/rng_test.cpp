// Unit tests of core/rng: determinism (same seed, any thread count), seed
// sensitivity and the statistics of the random fills.
#include "core/rng.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cmath>
#include <cstring>
#include <set>

namespace meshtest {
namespace {

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

struct Moments {
  double mean = 0.0;
  double stddev = 0.0;
};

Moments moments(const Tensor& t) {
  const float* p = t.data<float>();
  double sum = 0.0, sq = 0.0;
  for (int64_t i = 0; i < t.numel(); ++i) sum += p[i];
  const double mean = sum / static_cast<double>(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) sq += (p[i] - mean) * (p[i] - mean);
  return {mean, std::sqrt(sq / static_cast<double>(t.numel()))};
}

TEST(RngTest, SameSeedSameTensor) {
  // 200k elements: several fill chunks.
  EXPECT_TRUE(same_bytes(random_normal({200, 1000}, 42), random_normal({200, 1000}, 42)));
  EXPECT_TRUE(same_bytes(random_uniform({1000}, 42, -1, 1), random_uniform({1000}, 42, -1, 1)));
  EXPECT_TRUE(same_bytes(random_int({1000}, 42, 0, 100), random_int({1000}, 42, 0, 100)));
}

TEST(RngTest, DifferentSeedDifferentTensor) {
  const Tensor a = random_normal({100000}, 1);
  const Tensor b = random_normal({100000}, 2);
  EXPECT_FALSE(same_bytes(a, b));
  // Not just one element: the streams are unrelated.
  int equal = 0;
  for (int64_t i = 0; i < a.numel(); ++i) equal += a.data<float>()[i] == b.data<float>()[i];
  EXPECT_LT(equal, 10);
  // Later chunks are not copies of the first one.
  EXPECT_NE(std::memcmp(a.data<float>(), a.data<float>() + 65536, 1024 * sizeof(float)), 0);
}

TEST(RngTest, NormalStatistics) {
  const Moments standard = moments(random_normal({1000000}, 7));
  EXPECT_NEAR(standard.mean, 0.0, 0.01);
  EXPECT_NEAR(standard.stddev, 1.0, 0.01);
  const Moments shifted = moments(random_normal({1000000}, 8, 2.0f, 3.0f));
  EXPECT_NEAR(shifted.mean, 2.0, 0.03);
  EXPECT_NEAR(shifted.stddev, 3.0, 0.03);
}

TEST(RngTest, UniformStatisticsAndRange) {
  const Tensor u = random_uniform({1000000}, 9, -2.0f, 6.0f);
  for (int64_t i = 0; i < u.numel(); ++i) {
    ASSERT_GE(u.data<float>()[i], -2.0f);
    ASSERT_LE(u.data<float>()[i], 6.0f);
  }
  const Moments m = moments(u);
  EXPECT_NEAR(m.mean, 2.0, 0.02);
  EXPECT_NEAR(m.stddev, 8.0 / std::sqrt(12.0), 0.02);
}

TEST(RngTest, IntegersCoverTheHalfOpenRange) {
  const Tensor t = random_int({10000}, 3, -3, 4);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < t.numel(); ++i) seen.insert(t.data<int64_t>()[i]);
  EXPECT_EQ(seen, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3}));
}

TEST(RngTest, IndependentOfThreadCount) {
  const Shape shape = {1000000};
  Tensor serial_normal, serial_uniform;
  {
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    serial_normal = random_normal(shape, 123, 0.5f, 2.0f);
    serial_uniform = random_uniform(shape, 124, 0.0f, 1.0f);
  }
  EXPECT_TRUE(same_bytes(serial_normal, random_normal(shape, 123, 0.5f, 2.0f)));
  EXPECT_TRUE(same_bytes(serial_uniform, random_uniform(shape, 124, 0.0f, 1.0f)));
}

TEST(RngTest, GeneratorIsDeterministic) {
  Rng a(5), b(5), c(6);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differs = differs || x != c.next_u64();
  }
  EXPECT_TRUE(differs);
  for (int i = 0; i < 1000; ++i) {
    const double u = a.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(RngTest, SeedHashing) {
  EXPECT_EQ(hash_seed(""), 0xcbf29ce484222325ull);   // FNV-1a offset basis
  EXPECT_EQ(hash_seed("a"), 0xaf63dc4c8601ec8cull);  // published FNV-1a 64 test vector
  EXPECT_NE(hash_seed("resnet50/conv1.weight"), hash_seed("resnet50/conv2.weight"));
  EXPECT_EQ(mix_seed(1, 2), mix_seed(1, 2));
  EXPECT_NE(mix_seed(1, 2), mix_seed(1, 3));
  EXPECT_NE(mix_seed(1, 2), mix_seed(2, 2));
}

TEST(RngTest, Filled) {
  const Tensor t = filled({3, 2}, -1.5f);
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.data<float>()[i], -1.5f);
}

}  // namespace
}  // namespace meshtest
