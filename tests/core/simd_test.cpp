// Unit tests of core/simd: every kernel build (portable, AVX-512,
// AVX512-BF16) returns the same bits, ranges can be split anywhere, bf16 is
// rounded exactly as f32_to_bf16, and the normal stream looks normal.
#include "core/simd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dtype.h"
#include "core/rng.h"

namespace meshtest {
namespace {

using simd::Isa;

std::vector<Isa> accelerated_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Avx512, Isa::Avx512Bf16}) {
    if (simd::isa_supported(isa)) out.push_back(isa);
  }
  return out;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Ranges with odd starts and lengths (vector tails), and one across the
// 2^32-element block boundary of a stream.
struct Range {
  int64_t begin, count;
};
const Range kRanges[] = {{0, 1}, {0, 100003}, {17, 31}, {(int64_t{1} << 32) - 21, 50}, {int64_t{5} << 32, 16}};

template <class Out>
std::vector<Out> normal(Isa isa, uint64_t seed, Range r, float mean = 0.25f, float stddev = 1.5f) {
  std::vector<Out> out(static_cast<size_t>(r.count));
  simd::fill_normal(seed, r.begin, r.count, mean, stddev, out.data(), isa);
  return out;
}

template <class Out>
std::vector<Out> uniform(Isa isa, uint64_t seed, Range r) {
  std::vector<Out> out(static_cast<size_t>(r.count));
  simd::fill_uniform(seed, r.begin, r.count, -0.75f, 2.0f, out.data(), isa);
  return out;
}

TEST(SimdTest, EveryBuildDrawsTheSameStreams) {
  if (accelerated_isas().empty()) GTEST_SKIP() << "no AVX-512 on this CPU or build: only the portable path runs";
  for (Isa isa : accelerated_isas()) {
    SCOPED_TRACE(std::string(simd::isa_name(isa)));
    for (const Range& r : kRanges) {
      EXPECT_TRUE(same_bits(normal<float>(isa, 42, r), normal<float>(Isa::Portable, 42, r)));
      EXPECT_TRUE(same_bits(normal<uint16_t>(isa, 42, r), normal<uint16_t>(Isa::Portable, 42, r)));
      EXPECT_TRUE(same_bits(uniform<float>(isa, 43, r), uniform<float>(Isa::Portable, 43, r)));
      EXPECT_TRUE(same_bits(uniform<uint16_t>(isa, 43, r), uniform<uint16_t>(Isa::Portable, 43, r)));
    }
  }
}

// The values themselves are pinned: a change of algorithm, constant or
// rounding anywhere shows here first (and means re-checking every threshold
// that depends on the zoo's weights).
TEST(SimdTest, StreamValuesArePinned) {
  const std::vector<float> n = normal<float>(Isa::Portable, 42, {0, 4}, 0.0f, 1.0f);
  const std::vector<float> u = uniform<float>(Isa::Portable, 42, {0, 4});
  const std::vector<float> expected_normal = {0x1.5e2d0ep-3f, 0x1.0833ep-1f, -0x1.672d92p-3f, -0x1.bad8aep-1f};
  const std::vector<float> expected_uniform = {0x1.9f93e8p-1f, 0x1.2abe8cp+0f, 0x1.bbfad8p-2f, -0x1.bdff58p-3f};
  EXPECT_EQ(n, expected_normal);
  EXPECT_EQ(u, expected_uniform);
}

// FNV-1a over the bits of a stream's values.
template <class T>
uint64_t digest(const std::vector<T>& values) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (size_t i = 0; i < values.size() * sizeof(T); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

// A million values of each stream, pinned by their digest: the kernels
// computing many vectors at once (and the tail path, |x| > 0.9966, about
// 3,400 of them here) draw exactly the values drawn one vector at a time.
// (Digests of the values drawn one vector at a time.)
constexpr uint64_t kNormalDigest = 4745624109425340402ull;
constexpr uint64_t kUniformDigest = 15632585816950269220ull;

TEST(SimdTest, AMillionStreamValuesArePinned) {
  const Range r{3, 1 << 20};
  for (Isa isa : {Isa::Portable, Isa::Avx512, Isa::Avx512Bf16}) {
    if (!simd::isa_supported(isa)) continue;
    EXPECT_EQ(digest(normal<float>(isa, 42, r, 0.0f, 1.0f)), kNormalDigest) << simd::isa_name(isa);
    EXPECT_EQ(digest(uniform<float>(isa, 42, r)), kUniformDigest) << simd::isa_name(isa);
  }
}

TEST(SimdTest, AnySplitGivesTheSameValues) {
  const std::vector<float> whole = normal<float>(simd::best_isa(), 9, {0, 1000});
  std::vector<float> pieces(1000);
  const std::vector<int64_t> cuts = {0, 3, 40, 41, 500, 999, 1000};
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    simd::fill_normal(9, cuts[i], cuts[i + 1] - cuts[i], 0.25f, 1.5f, pieces.data() + cuts[i]);
  }
  EXPECT_TRUE(same_bits(whole, pieces));
}

TEST(SimdTest, Bf16StreamsAreTheF32StreamsRounded) {
  for (const Range& r : kRanges) {
    const std::vector<float> f = normal<float>(simd::best_isa(), 5, r);
    const std::vector<uint16_t> b = normal<uint16_t>(simd::best_isa(), 5, r);
    for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(b[i], f32_to_bf16(f[i])) << i;
  }
  const Tensor direct = random_normal({300, 77}, 11, 0.0f, 0.02f, DType::BF16);
  const Tensor via_f32 = random_normal({300, 77}, 11, 0.0f, 0.02f).to(DType::BF16);
  EXPECT_EQ(std::memcmp(direct.raw_data(), via_f32.raw_data(), direct.nbytes()), 0);
}

TEST(SimdTest, NormalStreamHasNormalQuantilesAndTails) {
  const int64_t n = 2000000;
  const std::vector<float> z = normal<float>(simd::best_isa(), 77, {0, n}, 0.0f, 1.0f);
  int64_t within1 = 0, within2 = 0, within3 = 0;
  float largest = 0.0f;
  for (float v : z) {
    within1 += std::fabs(v) < 1.0f;
    within2 += std::fabs(v) < 2.0f;
    within3 += std::fabs(v) < 3.0f;
    largest = std::max(largest, std::fabs(v));
  }
  EXPECT_NEAR(static_cast<double>(within1) / n, 0.682689, 0.002);
  EXPECT_NEAR(static_cast<double>(within2) / n, 0.954500, 0.001);
  EXPECT_NEAR(static_cast<double>(within3) / n, 0.997300, 0.0003);
  EXPECT_GT(largest, 4.5f);  // real tails, as a trained model's weights have
  EXPECT_LT(largest, 5.5f);
}

// Bit patterns that exercise every branch of f32_to_bf16: ties to even and
// odd, values rounding up to infinity, infinities, quiet and signalling NaNs
// of both signs, denormals (vcvtne2ps2bf16 flushes them: the fix-up path),
// zeros; then a sweep across all exponents.
std::vector<float> conversion_inputs() {
  std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u,
                                0x7f7fffffu, 0x7f7f8000u, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                0xffc00001u, 0x7f800001u, 0xff812345u, 0x00000001u, 0x807fffffu, 0x00400000u,
                                0x00008000u, 0x00018000u, 0x3f800000u, 0xc0490fdbu};
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 40009) bits.push_back(static_cast<uint32_t>(b));
  std::vector<float> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(float));
  return out;
}

TEST(SimdTest, ConversionMatchesTheScalarRounding) {
  const std::vector<float> in = conversion_inputs();
  std::vector<uint16_t> expected(in.size());
  for (size_t i = 0; i < in.size(); ++i) expected[i] = f32_to_bf16(in[i]);
  for (Isa isa : {Isa::Portable, Isa::Avx512, Isa::Avx512Bf16}) {
    if (!simd::isa_supported(isa)) continue;
    SCOPED_TRACE(std::string(simd::isa_name(isa)));
    // Every offset, so each special value lands in every lane and in a tail.
    for (size_t offset = 0; offset < 33; ++offset) {
      std::vector<uint16_t> got(in.size() - offset);
      simd::f32_to_bf16(in.data() + offset, got.data(), static_cast<int64_t>(got.size()), isa);
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i + offset]) << "input #" << i + offset;
    }
  }
  // Tensor::to goes through the same kernels.
  Tensor t(DType::F32, {static_cast<int64_t>(in.size())});
  std::memcpy(t.raw_data(), in.data(), t.nbytes());
  const Tensor b = t.to(DType::BF16);
  EXPECT_EQ(std::memcmp(b.raw_data(), expected.data(), b.nbytes()), 0);
}

}  // namespace
}  // namespace meshtest
