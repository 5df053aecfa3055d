// Unit tests of core/dtype: bf16 rounding (ties, NaN, inf, denormals, signed
// zero), the bfp8_b block format, storage sizes and dtype names.
#include "core/dtype.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/error.h"

namespace meshtest {
namespace {

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

uint16_t bf16_of_bits(uint32_t bits) { return f32_to_bf16(from_bits(bits)); }

bool is_bf16_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0; }

// ---- bf16 ----

TEST(Bf16Test, ExactTiesRoundToEven) {
  EXPECT_EQ(bf16_of_bits(0x3F808000u), 0x3F80u);  // lsb 0: stays
  EXPECT_EQ(bf16_of_bits(0x3F818000u), 0x3F82u);  // lsb 1: goes up to even
  EXPECT_EQ(bf16_of_bits(0xBF808000u), 0xBF80u);  // negative ties behave the same on magnitude
  EXPECT_EQ(bf16_of_bits(0xBF818000u), 0xBF82u);
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f), 0x3F80u);  // 1 + half an ulp of bf16
}

TEST(Bf16Test, JustAboveAndBelowTies) {
  EXPECT_EQ(bf16_of_bits(0x3F808001u), 0x3F81u);
  EXPECT_EQ(bf16_of_bits(0x3F807FFFu), 0x3F80u);
  EXPECT_EQ(bf16_of_bits(0x3F818001u), 0x3F82u);
  EXPECT_EQ(bf16_of_bits(0x3F817FFFu), 0x3F81u);
  EXPECT_EQ(bf16_of_bits(0xBF808001u), 0xBF81u);
  EXPECT_EQ(bf16_of_bits(0xBF807FFFu), 0xBF80u);
}

TEST(Bf16Test, CarryPropagatesIntoExponent) {
  // 1.99999988 rounds up to 2.0 (mantissa overflow carries into the exponent).
  EXPECT_EQ(bf16_of_bits(0x3FFFFFFFu), 0x4000u);
  EXPECT_EQ(round_to_bf16(from_bits(0x3FFFFFFFu)), 2.0f);
}

TEST(Bf16Test, NanStaysQuietNanWithSign) {
  const uint32_t cases[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u,
                            0x7FFFFFFFu, 0xFFFFFFFFu, 0x7F808000u, 0x7FA00000u};
  for (uint32_t bits : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << bits);
    const uint16_t b = bf16_of_bits(bits);
    EXPECT_TRUE(is_bf16_nan(b)) << std::hex << b;
    EXPECT_NE(b & 0x0040u, 0u) << "quiet bit must be set";
    EXPECT_EQ(b >> 15, bits >> 31) << "sign must be kept";
    EXPECT_TRUE(std::isnan(bf16_to_f32(b)));
  }
  // A signalling NaN whose payload sits only in the low 16 bits must not become inf.
  EXPECT_EQ(bf16_of_bits(0x7F800001u), 0x7FC0u);
  EXPECT_EQ(bf16_of_bits(0xFF800001u), 0xFFC0u);
}

TEST(Bf16Test, InfinityKept) {
  EXPECT_EQ(f32_to_bf16(INFINITY), 0x7F80u);
  EXPECT_EQ(f32_to_bf16(-INFINITY), 0xFF80u);
  EXPECT_EQ(bf16_to_f32(0x7F80u), INFINITY);
  EXPECT_EQ(bf16_to_f32(0xFF80u), -INFINITY);
}

TEST(Bf16Test, OverflowRoundsToInfinity) {
  EXPECT_EQ(f32_to_bf16(FLT_MAX), 0x7F80u);
  EXPECT_EQ(f32_to_bf16(-FLT_MAX), 0xFF80u);
  EXPECT_EQ(bf16_of_bits(0x7F7F8000u), 0x7F80u);  // tie above the largest bf16 (odd): up to inf
  EXPECT_EQ(bf16_of_bits(0x7F7F7FFFu), 0x7F7Fu);  // just below the tie: largest finite bf16
}

TEST(Bf16Test, Denormals) {
  EXPECT_EQ(bf16_of_bits(0x00000001u), 0x0000u);            // smallest f32 denormal rounds to +0
  EXPECT_EQ(bf16_of_bits(0x80000001u), 0x8000u);            // ... and to -0 when negative
  EXPECT_EQ(bf16_to_f32(0x0001u), std::ldexp(1.0f, -133));  // smallest bf16 denormal
  EXPECT_EQ(bf16_of_bits(0x00010000u), 0x0001u);
  EXPECT_EQ(bf16_of_bits(0x00008000u), 0x0000u);  // half the smallest bf16 denormal: tie to even (0)
  EXPECT_EQ(bf16_of_bits(0x00008001u), 0x0001u);
  EXPECT_EQ(bf16_of_bits(0x00018000u), 0x0002u);  // tie with odd lsb goes up
  EXPECT_EQ(bf16_of_bits(0x007FFFFFu), 0x0080u);  // largest f32 denormal rounds to the smallest normal
  EXPECT_EQ(bf16_of_bits(0x007F7FFFu), 0x007Fu);  // largest bf16 denormal
}

TEST(Bf16Test, NegativeZeroKept) {
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000u);
  EXPECT_EQ(f32_to_bf16(0.0f), 0x0000u);
  EXPECT_TRUE(std::signbit(bf16_to_f32(0x8000u)));
  EXPECT_TRUE(std::signbit(round_to_bf16(-0.0f)));
}

TEST(Bf16Test, EveryBf16ValueRoundTripsExactly) {
  for (uint32_t b = 0; b <= 0xFFFFu; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = bf16_to_f32(bits);
    EXPECT_EQ(to_bits(f), b << 16);
    if (is_bf16_nan(bits)) {
      EXPECT_TRUE(is_bf16_nan(f32_to_bf16(f)));
    } else {
      ASSERT_EQ(f32_to_bf16(f), bits) << std::hex << b;
    }
  }
}

TEST(Bf16Test, MatchesNearestEvenReference) {
  // Reference: pick the nearer of the two bf16 neighbours in double, ties to even.
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = any(gen);
    const float f = from_bits(bits);
    if (!std::isfinite(f)) continue;
    const uint16_t down = static_cast<uint16_t>(bits >> 16);  // truncation: towards zero
    const uint16_t up = static_cast<uint16_t>(down + 1);      // next magnitude away from zero
    const double dd = std::fabs(static_cast<double>(f) - bf16_to_f32(down));
    // Past the largest finite bf16, IEEE rounding treats inf as if it were 2^128.
    const double up_value = std::isinf(bf16_to_f32(up)) ? std::copysign(0x1p128, f) : bf16_to_f32(up);
    const double du = std::fabs(static_cast<double>(f) - up_value);
    const uint16_t expected = dd < du ? down : du < dd ? up : ((down & 1u) ? up : down);
    ASSERT_EQ(f32_to_bf16(f), expected) << std::hex << bits;
  }
}

// ---- bfp8_b ----

// Encodes `values` in consecutive blocks of 16 (the last one partial) with the
// block codec and decodes them back (the tensor layout: bfp8_layout_test.cpp).
std::vector<float> bfp8_round_trip(const std::vector<float>& values, std::vector<uint8_t>* bytes = nullptr) {
  const auto n = static_cast<int64_t>(values.size());
  std::vector<uint8_t> storage(storage_bytes(DType::BFP8_B, n), 0xAB);
  std::vector<float> out(values.size());
  for (int64_t first = 0; first < n; first += kBfp8BlockSize) {
    const int count = static_cast<int>(std::min<int64_t>(kBfp8BlockSize, n - first));
    uint8_t* block = storage.data() + first / kBfp8BlockSize * static_cast<int64_t>(kBfp8BlockBytes);
    encode_bfp8_b_block(values.data() + first, count, block);
    decode_bfp8_b_block(block, count, out.data() + first);
  }
  if (bytes) *bytes = storage;
  return out;
}

TEST(Bfp8Test, SharedExponentBlockIsExactForSevenSignificantBits) {
  // All values in [2, 4): exponent 1, mantissa with the leading one plus 6 bits.
  std::vector<float> values;
  for (int k = 0; k < 16; ++k) values.push_back((k % 2 ? -1.0f : 1.0f) * 2.0f * (64 + 4 * k - (k == 15)) / 64.0f);
  std::vector<uint8_t> bytes;
  EXPECT_EQ(bfp8_round_trip(values, &bytes), values);
  EXPECT_EQ(bytes[0], 128);  // biased exponent of 2.0
  EXPECT_EQ(bytes[1], 64);   // 2.0 = 64 * 2^(1-6)
  EXPECT_EQ(bytes[2], 0x80 | 68);
}

TEST(Bfp8Test, PowersOfTwoBelowTheSharedExponentAreExactWhileTheyFit) {
  const std::vector<float> values = {1.0f,  0.5f, 0.25f, 0.125f, 0.0625f,   0.03125f,   0.015625f, -1.0f,
                                     0.75f, 0.0f, -0.5f, 0.375f, 0.984375f, -0.015625f, 0.515625f, 0.0f};
  EXPECT_EQ(bfp8_round_trip(values), values);
}

TEST(Bfp8Test, MixedMagnitudesLoseSmallValues) {
  // Shared exponent comes from 256: a step of 2^(8-6) = 4, so 1.0 flushes to 0,
  // 2.0 is a tie (rounds to even 0), 3.0 rounds to 4, 6.0 is a tie (rounds to 8).
  std::vector<float> values(16, 0.0f);
  values[0] = 256.0f;
  values[1] = 1.0f;
  values[2] = 2.0f;
  values[3] = 3.0f;
  values[4] = 6.0f;
  values[5] = -10.0f;
  values[6] = 257.0f;  // needs more than 7 significant bits: rounds to 256
  const std::vector<float> out = bfp8_round_trip(values);
  EXPECT_EQ(out[0], 256.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[3], 4.0f);
  EXPECT_EQ(out[4], 8.0f);
  EXPECT_EQ(out[5], -8.0f);  // -10/4 = -2.5: tie to even -> -2 steps
  EXPECT_EQ(out[6], 256.0f);
}

TEST(Bfp8Test, MatchesQuantizationReference) {
  // Each value becomes round_half_even(v / step) * step, |steps| <= 127, with
  // step = 2^(shared_exponent - 127 - 6).
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-20, 20);
  for (int block = 0; block < 500; ++block) {
    std::vector<float> values(16);
    for (float& v : values) v = std::ldexp(normal(gen), scale(gen));
    float max_abs = 0.0f;
    for (float v : values) max_abs = std::max(max_abs, std::fabs(v));
    const int shared = std::ilogb(max_abs) + 127;
    const double step = std::ldexp(1.0, shared - 127 - 6);
    const std::vector<float> out = bfp8_round_trip(values);
    for (size_t i = 0; i < values.size(); ++i) {
      const double steps = std::min(127.0, std::nearbyint(std::fabs(values[i]) / step));
      const double expected = std::copysign(steps * step, values[i]);
      ASSERT_EQ(static_cast<double>(out[i]), expected) << "block " << block << " value " << values[i];
    }
  }
}

TEST(Bfp8Test, PartialLastBlockIsZeroPadded) {
  std::vector<float> values;
  for (int i = 0; i < 20; ++i) values.push_back(static_cast<float>(i) * 0.25f);
  std::vector<uint8_t> bytes;
  const std::vector<float> out = bfp8_round_trip(values, &bytes);
  ASSERT_EQ(bytes.size(), 2 * kBfp8BlockBytes);
  EXPECT_EQ(out, values);
  EXPECT_EQ(bytes[kBfp8BlockBytes], 127 + 2);  // second block: max 4.75 -> exponent 2
  for (size_t i = kBfp8BlockBytes + 1 + 4; i < bytes.size(); ++i) EXPECT_EQ(bytes[i], 0) << i;
}

TEST(Bfp8Test, ZeroBlock) {
  std::vector<uint8_t> bytes;
  const std::vector<float> out = bfp8_round_trip(std::vector<float>(16, 0.0f), &bytes);
  for (uint8_t b : bytes) EXPECT_EQ(b, 0);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

TEST(Bfp8Test, DenormalBlockIsExact) {
  std::vector<float> values(16, 0.0f);
  values[0] = from_bits(0x00400000u);   // 2^-127
  values[1] = -from_bits(0x00200000u);  // -2^-128
  values[2] = from_bits(0x00600000u);   // 1.5 * 2^-127
  EXPECT_EQ(bfp8_round_trip(values), values);
}

TEST(Bfp8Test, NanAndInfSaturateToLargestMagnitudeWithSign) {
  std::vector<float> values(16, 0.0f);
  values[0] = INFINITY;
  values[1] = -INFINITY;
  values[2] = NAN;
  values[3] = -NAN;
  values[4] = 1.0f;
  const std::vector<float> out = bfp8_round_trip(values);
  const float largest = std::ldexp(127.0f, 254 - 127 - 6);
  EXPECT_EQ(out[0], largest);
  EXPECT_EQ(out[1], -largest);
  EXPECT_EQ(out[2], largest);
  EXPECT_EQ(out[3], -largest);
  EXPECT_EQ(out[4], 0.0f);  // far below the shared exponent
  for (float v : out) EXPECT_TRUE(std::isfinite(v));
}

// ---- sizes and names ----

TEST(DTypeTest, StorageBytes) {
  EXPECT_EQ(storage_bytes(DType::F32, 10), 40u);
  EXPECT_EQ(storage_bytes(DType::BF16, 10), 20u);
  EXPECT_EQ(storage_bytes(DType::I32, 3), 12u);
  EXPECT_EQ(storage_bytes(DType::I64, 3), 24u);
  EXPECT_EQ(storage_bytes(DType::Bool, 5), 5u);
  EXPECT_EQ(storage_bytes(DType::F32, 0), 0u);
  EXPECT_EQ(storage_bytes(DType::BFP8_B, 0), 0u);
  EXPECT_EQ(storage_bytes(DType::BFP8_B, 1), 17u);
  EXPECT_EQ(storage_bytes(DType::BFP8_B, 16), 17u);
  EXPECT_EQ(storage_bytes(DType::BFP8_B, 17), 34u);
  EXPECT_EQ(storage_bytes(DType::BFP8_B, 1024), 64u * 17u);
  EXPECT_EQ(dtype_size(DType::BFP8_B), 0u);
  EXPECT_EQ(dtype_size(DType::BF16), 2u);
}

TEST(DTypeTest, NamesRoundTrip) {
  for (DType d : {DType::F32, DType::BF16, DType::BFP8_B, DType::I32, DType::I64, DType::Bool}) {
    EXPECT_EQ(parse_dtype(dtype_name(d)), d);
  }
  EXPECT_EQ(dtype_name(DType::BFP8_B), "bfp8_b");
  EXPECT_TRUE(is_floating(DType::BFP8_B));
  EXPECT_TRUE(is_integer(DType::Bool));
  EXPECT_FALSE(is_integer(DType::BF16));
}

TEST(DTypeTest, ParseDtypeErrors) {
  for (const char* bad : {"", "F32", "float32", "f32 ", "bfp8", "int64"}) {
    try {
      parse_dtype(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const ParseError& e) {
      EXPECT_THAT(e.what(), testing::HasSubstr("unknown dtype '" + std::string(bad) + "'"));
    }
  }
}

}  // namespace
}  // namespace meshtest
