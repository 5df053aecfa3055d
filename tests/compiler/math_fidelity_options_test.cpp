// Math fidelity options: names (HiFi3 included), the phases each fidelity
// runs, the operand bits its multiplier sees and the compile fingerprint.
#include <gtest/gtest.h>

#include "compiler/compile_options.h"
#include "core/error.h"

namespace meshtest::compiler {
namespace {

TEST(MathFidelityOptions, HiFi3ParsesAndNamesItself) {
  EXPECT_EQ(parse_math_fidelity("HiFi3"), MathFidelity::HiFi3);
  EXPECT_EQ(parse_math_fidelity("hifi3"), MathFidelity::HiFi3);
  EXPECT_EQ(math_fidelity_name(MathFidelity::HiFi3), "HiFi3");
  EXPECT_THROW(parse_math_fidelity("HiFi5"), ParseError);
}

TEST(MathFidelityOptions, PhasesAndOperandBitsFollowTheHardware) {
  struct Expected {
    MathFidelity fidelity;
    int phases, activation_bits, weight_bits;
  };
  for (const Expected& e : {Expected{MathFidelity::LoFi, 1, 6, 4}, Expected{MathFidelity::HiFi2, 2, 6, 7},
                            Expected{MathFidelity::HiFi3, 3, 7, 7}, Expected{MathFidelity::HiFi4, 4, 7, 7}}) {
    SCOPED_TRACE(std::string(math_fidelity_name(e.fidelity)));
    EXPECT_EQ(fidelity_phases(e.fidelity), e.phases);
    EXPECT_EQ(fidelity_mantissa_bits(e.fidelity, 0), e.activation_bits);
    EXPECT_EQ(fidelity_mantissa_bits(e.fidelity, 1), e.weight_bits);
  }
}

TEST(MathFidelityOptions, HiFi3HasItsOwnFingerprint) {
  CompileOptions hifi3;
  hifi3.math_fidelity = MathFidelity::HiFi3;
  for (MathFidelity other : {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi4}) {
    CompileOptions o;
    o.math_fidelity = other;
    EXPECT_NE(o.fingerprint(), hifi3.fingerprint());
  }
  EXPECT_NE(hifi3.fingerprint().find("fidelity=HiFi3"), std::string::npos);
}

}  // namespace
}  // namespace meshtest::compiler
