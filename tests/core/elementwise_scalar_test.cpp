// The scalar edge cases of core/elementwise_scalar.h that the reference and
// device kernels share: integer division and remainder by zero and of
// INT_MIN by -1, shifts, total order, the special functions (erf_inv,
// digamma) against identities, and the bit-level next_after and
// reduce_precision on every IEEE format the IR has.
#include "core/elementwise_scalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/dtype.h"

namespace meshtest {
namespace {

TEST(ElementwiseScalar, IntegerDivisionAndRemainderEdgeCases) {
  EXPECT_EQ(scalar::div_truncate<int8_t>(-7, 2), -3);
  EXPECT_EQ(scalar::div_truncate<int8_t>(5, 0), -1);
  EXPECT_EQ(scalar::div_truncate<uint8_t>(5, 0), 255);
  EXPECT_EQ(scalar::div_truncate<int32_t>(INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(scalar::div_floor<int32_t>(-7, 2), -4);
  EXPECT_EQ(scalar::div_floor<int64_t>(INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(scalar::remainder_int<int16_t>(-7, 0), -7);
  EXPECT_EQ(scalar::remainder_int<int16_t>(INT16_MIN, -1), 0);
  EXPECT_EQ(scalar::remainder_int<uint16_t>(7, 0), 7);
  EXPECT_EQ(scalar::wrap_mul<uint16_t>(65535, 65535), 1);  // no int promotion overflow
  EXPECT_EQ(scalar::wrap_abs<int8_t>(-128), -128);
  EXPECT_EQ(scalar::power_int<int64_t>(-2, 63), INT64_MIN);
  EXPECT_EQ(scalar::power_int<int8_t>(-1, -7), -1);
}

TEST(ElementwiseScalar, ShiftsOutOfRangeAndOnUnsigned) {
  EXPECT_EQ(scalar::shift_left<uint32_t>(1, 31), 0x80000000u);
  EXPECT_EQ(scalar::shift_left<uint32_t>(1, 32), 0u);
  EXPECT_EQ(scalar::shift_right_logical<int64_t>(-1, 63), 1);
  EXPECT_EQ(scalar::shift_right_logical<int64_t>(-1, 64), 0);
  EXPECT_EQ(scalar::shift_right_arithmetic<int64_t>(-2, 100), -1);
  EXPECT_EQ(scalar::shift_right_arithmetic<uint16_t>(0x8000, 15), 0xffff);  // the sign of the bits
  EXPECT_EQ(scalar::popcnt<int64_t>(-1), 64);
  EXPECT_EQ(scalar::clz<uint16_t>(1), 15);
}

TEST(ElementwiseScalar, TotalOrderAndMinMax) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_LT(scalar::total_order_key(-nan), scalar::total_order_key(-INFINITY));
  EXPECT_LT(scalar::total_order_key(-0.0), scalar::total_order_key(0.0));
  EXPECT_LT(scalar::total_order_key(INFINITY), scalar::total_order_key(nan));
  EXPECT_LT(scalar::total_order_key(-2.0), scalar::total_order_key(-1.0));
  EXPECT_TRUE(std::signbit(scalar::float_min(0.0, -0.0)));
  EXPECT_FALSE(std::signbit(scalar::float_max(-0.0, 0.0)));
  EXPECT_TRUE(std::isnan(scalar::float_max(1.0, nan)));
  scalar::CompareDirection d;
  EXPECT_TRUE(scalar::parse_compare_direction("GE", d));
  EXPECT_EQ(d, scalar::CompareDirection::GE);
  EXPECT_FALSE(scalar::parse_compare_direction("ge", d));
}

TEST(ElementwiseScalar, SpecialFunctions) {
  for (double y : {-0.999999999, -0.9, -0.3, 1e-300, 0.25, 0.5, 0.75, 0.999, 0.9999999999}) {
    const double x = scalar::erf_inv(y);
    EXPECT_NEAR(std::erf(x), y, 4e-16 * std::max(1.0, std::fabs(y))) << y;
  }
  EXPECT_EQ(scalar::erf_inv(1.0), INFINITY);
  EXPECT_TRUE(std::isnan(scalar::erf_inv(1.5)));
  constexpr double kEulerGamma = 0.57721566490153286;
  EXPECT_NEAR(scalar::digamma(1.0), -kEulerGamma, 1e-15);
  EXPECT_NEAR(scalar::digamma(0.5), -kEulerGamma - 2 * std::log(2.0), 1e-15);
  EXPECT_NEAR(scalar::digamma(-0.5), -kEulerGamma - 2 * std::log(2.0) + 2.0, 1e-14);  // psi(x+1) = psi(x) + 1/x
  EXPECT_NEAR(scalar::digamma(100.0), 4.600161852738088, 1e-14);
  EXPECT_TRUE(std::isnan(scalar::digamma(-3.0)));
}

TEST(ElementwiseScalar, NextAfterOnBits) {
  const scalar::BinaryFormat<uint16_t> f16{5, 10};
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x3c00, 0x4000, 1.0, 2.0), 0x3c01);
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x3c00, 0x0000, 1.0, 0.0), 0x3bff);
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0xbc00, 0x0000, -1.0, 0.0), 0xbbff);  // towards zero
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x8000, 0x3c00, -0.0, 1.0), 0x0001);
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x7bff, 0x7c00, 65504.0, INFINITY), 0x7c00);
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x3c00, 0x3c00, 1.0, 1.0), 0x3c00);
  EXPECT_EQ(scalar::next_after_bits<uint16_t>(f16, 0x3c00, 0x7e00, 1.0, NAN), 0x7e00);
}

TEST(ElementwiseScalar, ReducePrecisionOnBits) {
  const scalar::BinaryFormat<uint16_t> bf16{8, 7};
  // bf16 to (5, 2): 1.375 (mantissa 0b0110000) ties between 1.25 and 1.5 -> even 1.5.
  EXPECT_EQ(scalar::reduce_precision_bits<uint16_t>(bf16, f32_to_bf16(1.375f), 5, 2), f32_to_bf16(1.5f));
  EXPECT_EQ(scalar::reduce_precision_bits<uint16_t>(bf16, f32_to_bf16(1e6f), 5, 2), 0x7f80);   // overflow
  EXPECT_EQ(scalar::reduce_precision_bits<uint16_t>(bf16, f32_to_bf16(-1e-6f), 5, 2), 0x8000);  // flush, sign kept
  const uint16_t nan = 0x7fc1;
  EXPECT_EQ(scalar::reduce_precision_bits<uint16_t>(bf16, nan, 5, 2), nan);
  const scalar::BinaryFormat<uint64_t> f64{11, 52};
  const double third = 1.0 / 3.0;
  uint64_t bits;
  std::memcpy(&bits, &third, sizeof bits);
  const uint64_t reduced = scalar::reduce_precision_bits<uint64_t>(f64, bits, 8, 23);
  double value;
  std::memcpy(&value, &reduced, sizeof value);
  EXPECT_EQ(value, static_cast<double>(static_cast<float>(third)));  // f64 -> f32 precision
  EXPECT_EQ(round_to_binary_format(third, 8, 23), static_cast<double>(static_cast<float>(third)));
}

}  // namespace
}  // namespace meshtest
