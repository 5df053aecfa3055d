// Reduced math fidelity on the simulated chip: each fidelity's GEMM result is
// exactly the sum of the hardware phases it runs (compiler/compile_options.h),
// with hand-derived operands whose high / low mantissa slices are known.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime_device/device_test_util.h"

namespace meshtest::runtime {
namespace {

using compiler::MathFidelity;
using testing_util::run_device;

double p2(int e) { return std::ldexp(1.0, e); }

// Activation rows [a, -1] against one weight column [w, 1]: y = a*w - 1, so
// the slices' products are not lost in the bf16 rounding of the result.
//   row 0: a = 1 + 2^-7 (activation high slice 1, low slice 2^-7)
//   row 1: a = 1 + 2^-5 (all in the activation's high slice)
//   w = 1 + 2^-5 + 2^-7 (weight high slice 1, low slice 2^-5 + 2^-7)
const std::vector<float> kActivations = {static_cast<float>(1 + p2(-7)), -1.0f, static_cast<float>(1 + p2(-5)), -1.0f};
const std::vector<float> kWeightColumn = {static_cast<float>(1 + p2(-5) + p2(-7)), 1.0f};

std::vector<float> run_matmul(MathFidelity fidelity) {
  GraphBuilder g("fidelity");
  const ValueId x = g.input("x", DType::F32, {2, 2});
  g.output("y", g.matmul(x, g.weight("w", Tensor::from_f32({2, 1}, kWeightColumn))));
  compiler::CompileOptions opt;
  opt.math_fidelity = fidelity;
  return run_device(g.finish(), {{"x", Tensor::from_f32({2, 2}, kActivations)}}, opt).at(0).to_f32_vector();
}

std::vector<float> as_floats(std::initializer_list<double> v) { return std::vector<float>(v.begin(), v.end()); }

TEST(MathFidelity, LoFiNarrowsTheWeightToFourBitsAndTheActivationToSix) {
  // a[6] * w[4] - 1: row 0 loses a's bit 7 and w's bits 5 and 7; row 1 keeps
  // a's bit 5 and loses only the weight's (an activation-narrowed model,
  // a[4] * w, would give 2^-5 + 2^-7 there, a[4] * w[6] 2^-5 in row 0).
  EXPECT_EQ(run_matmul(MathFidelity::LoFi), as_floats({0.0, p2(-5)}));
}

TEST(MathFidelity, HiFi2AddsTheWeightsLowSlice) {
  // a[6] * w - 1. Row 1: 2^-4 + 2^-7 + 2^-10 + 2^-12 rounds (to even) to bf16.
  EXPECT_EQ(run_matmul(MathFidelity::HiFi2), as_floats({p2(-5) + p2(-7), p2(-4) + p2(-7) + p2(-10)}));
}

TEST(MathFidelity, HiFi3MissesOnlyTheLowTimesLowProduct) {
  // a*w - a[low]*w[low] - 1 = 2^-5 + 2^-6 in row 0 (the 2^-12 + 2^-14 of
  // 2^-7 * (2^-5 + 2^-7) is missing); row 1 has no activation low slice.
  EXPECT_EQ(run_matmul(MathFidelity::HiFi3), as_floats({p2(-5) + p2(-6), p2(-4) + p2(-7) + p2(-10)}));
}

TEST(MathFidelity, HiFi4IsTheExactBf16Product) {
  // Row 0: 2^-5 + 2^-6 + 2^-12 + 2^-14 rounds to bf16 as 2^-5 + 2^-6 + 2^-12.
  EXPECT_EQ(run_matmul(MathFidelity::HiFi4), as_floats({p2(-5) + p2(-6) + p2(-12), p2(-4) + p2(-7) + p2(-10)}));
}

TEST(MathFidelity, HiFi3AddsALinearBiasOnce) {
  // linear(x, w^T, 0.5) at HiFi3 runs two phase groups; the bias belongs to one.
  GraphBuilder g("fidelity_bias");
  const ValueId x = g.input("x", DType::F32, {2, 2});
  const ValueId w = g.weight("w", Tensor::from_f32({1, 2}, kWeightColumn));
  g.output("y", g.linear(x, w, g.weight("b", Tensor::from_f32({1}, {0.5f}))));
  compiler::CompileOptions opt;
  opt.math_fidelity = MathFidelity::HiFi3;
  const std::vector<float> y =
      run_device(g.finish(), {{"x", Tensor::from_f32({2, 2}, kActivations)}}, opt).at(0).to_f32_vector();
  // Row 1's 2^-10 falls below bf16 precision next to 0.5; a bias added twice gives 1.046875 in row 0.
  EXPECT_EQ(y, as_floats({0.5 + p2(-5) + p2(-6), 0.5 + p2(-4) + p2(-7)}));
}

}  // namespace
}  // namespace meshtest::runtime
