// The per-op check's accumulation bound (runner/pipeline/accumulation_bound.h):
// a K = 4096 dot product accumulated in f32 in any order stays within it, the
// same sums accumulated in bf16 (every add, or 32-wide tiles) do not.
#include "runner/pipeline/accumulation_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/dtype.h"
#include "core/rng.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {
namespace {

constexpr int64_t kDepth = 4096;
constexpr int64_t kOutputs = 64;

// x[1, K] and w[N, K] of bf16 values (held as f32), normal-ish with a mean
// so that sums grow as they do in a trained layer.
struct Operands {
  Tensor x{DType::F32, {1, kDepth}};
  Tensor w{DType::F32, {kOutputs, kDepth}};
};

Operands make_operands(uint64_t seed) {
  Operands o;
  Rng rng(seed);
  for (int64_t i = 0; i < kDepth; ++i) o.x.data<float>()[i] = round_to_bf16(static_cast<float>(0.5 + rng.normal()));
  for (int64_t i = 0; i < kOutputs * kDepth; ++i) {
    o.w.data<float>()[i] = round_to_bf16(static_cast<float>(0.02 + 0.05 * rng.normal()));
  }
  return o;
}

DeviceInstr linear_instr() {
  DeviceInstr instr;
  instr.kind = OpKind::Linear;
  instr.origin = "op #0 linear";
  return instr;
}

// A device linear whose accumulator is `add` (one product at a time, from
// the last k down, so the order differs from the reference's), its result
// rounded to bf16 and held as f32.
Tensor device_linear(const Operands& o, const std::function<float(float, float)>& add) {
  Tensor out(DType::F32, {1, kOutputs});
  for (int64_t n = 0; n < kOutputs; ++n) {
    float sum = 0.0f;
    for (int64_t k = kDepth; k-- > 0;) sum = add(sum, o.x.data<float>()[k] * o.w.data<float>()[n * kDepth + k]);
    out.data<float>()[n] = round_to_bf16(sum);
  }
  return out;
}

AccumulationCheck check(const Operands& o, const Tensor& device) {
  const std::vector<Tensor> operands{o.x, o.w};
  const Tensor reference = runtime::run_reference_op(Op{OpKind::Linear, {}, kNoValue, {}}, operands);
  const std::optional<AccumulationCheck> c = check_accumulation(linear_instr(), operands, device, reference, DType::BF16);
  EXPECT_TRUE(c.has_value());
  return c.value_or(AccumulationCheck{});
}

TEST(AccumulationBound, F32AccumulationAtK4096StaysWithin) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Operands o = make_operands(seed);
    const AccumulationCheck c = check(o, device_linear(o, [](float s, float p) { return s + p; }));
    EXPECT_EQ(c.k, kDepth);
    EXPECT_LE(c.worst_ratio, 1.0) << "seed " << seed;
  }
}

TEST(AccumulationBound, Bf16AccumulationAtK4096IsPastIt) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Operands o = make_operands(seed);
    const AccumulationCheck c =
        check(o, device_linear(o, [](float s, float p) { return round_to_bf16(s + p); }));
    EXPECT_GT(c.worst_ratio, 10.0) << "seed " << seed << ": an order of magnitude past the bound";
  }
}

// The per-op check hands a linear its bf16 weight as the device holds it:
// the bound is still checked (not skipped) and still tells the two
// accumulators apart.
TEST(AccumulationBound, ABf16WeightIsCheckedAsItsValues) {
  const Operands o = make_operands(5);
  const std::vector<Tensor> held{o.x, o.w.to(DType::BF16)};
  const Tensor reference = runtime::run_reference_op(Op{OpKind::Linear, {}, kNoValue, {}}, held);
  const Tensor f32_sums = device_linear(o, [](float s, float p) { return s + p; });
  const Tensor bf16_sums = device_linear(o, [](float s, float p) { return round_to_bf16(s + p); });
  const std::optional<AccumulationCheck> within = check_accumulation(linear_instr(), held, f32_sums, reference, DType::BF16);
  const std::optional<AccumulationCheck> past = check_accumulation(linear_instr(), held, bf16_sums, reference, DType::BF16);
  ASSERT_TRUE(within.has_value());
  ASSERT_TRUE(past.has_value());
  EXPECT_LE(within->worst_ratio, 1.0);
  EXPECT_GT(past->worst_ratio, 10.0);
}

// A NaN element is past the bound wherever it sits among its lane's
// elements (not overwritten by the elements after it).
TEST(AccumulationBound, ANanElementIsPastWhateverFollowsIt) {
  const Operands o = make_operands(6);
  Tensor device = device_linear(o, [](float s, float p) { return s + p; });
  device.data<float>()[3] = std::nanf("");
  const AccumulationCheck c = check(o, device);
  EXPECT_TRUE(std::isinf(c.worst_ratio)) << c.worst_ratio;
  EXPECT_EQ(c.worst_element, 3);
}

// Where every element is within the rounding term, the worst one is named
// (its lane and position in the chunk, not lane 0's).
TEST(AccumulationBound, TheWorstElementWithinTheRoundingTermIsNamed) {
  const Operands o = make_operands(8);
  const Tensor reference = runtime::run_reference_op(Op{OpKind::Linear, {}, kNoValue, {}}, {o.x, o.w});
  for (const int64_t element : {int64_t{5}, int64_t{37}, int64_t{63}}) {
    Tensor device = reference.clone();
    const float ref = reference.data<float>()[element];
    device.data<float>()[element] = ref + 0.5f * 0x1p-8f * std::fabs(ref);  // half its bf16 rounding term
    const AccumulationCheck c = check(o, device);
    EXPECT_EQ(c.worst_element, element);
    EXPECT_NEAR(c.worst_ratio, 0.5, 0.01);
  }
}

TEST(AccumulationBound, Bf16SumOf32WideTilesIsPastIt) {
  const Operands o = make_operands(7);
  int64_t seen = 0;
  float tile = 0.0f;
  // f32 within a 32-product tile, the tiles' partial sums rounded to bf16 and added in bf16.
  const AccumulationCheck c = check(o, device_linear(o, [&](float s, float p) {
    tile += p;
    if (++seen % 32 != 0) return s;
    const float sum = round_to_bf16(s + round_to_bf16(tile));
    tile = 0.0f;
    return sum;
  }));
  EXPECT_GT(c.worst_ratio, 1.0);
}

TEST(AccumulationBound, BoundGrowsWithKAndResultPrecision) {
  EXPECT_DOUBLE_EQ(gamma_n(4096), 4096 * 0x1p-24 / (1 - 4096 * 0x1p-24));
  const AccumulationBound short_f32(32, DType::F32), long_f32(4096, DType::F32), long_bf16(4096, DType::BF16);
  EXPECT_LT(short_f32(1.0, 100.0), long_f32(1.0, 100.0));
  EXPECT_LT(long_f32(1.0, 100.0), long_bf16(1.0, 100.0));
  EXPECT_NEAR(long_bf16(1.0, 0.0), 0x1p-8, 1e-9);  // half a bf16 ulp of the result
}

TEST(AccumulationBound, CoversMatmulConvAndReductionsNotOtherOps) {
  Tensor a(DType::F32, {2, 3, 8});
  Tensor b(DType::F32, {8, 5});
  Rng rng(3);
  for (int64_t i = 0; i < a.numel(); ++i) a.data<float>()[i] = round_to_bf16(static_cast<float>(rng.normal()));
  for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] = round_to_bf16(static_cast<float>(rng.normal()));
  DeviceInstr mm;
  mm.kind = OpKind::Matmul;
  const Tensor r = runtime::run_reference_op(Op{OpKind::Matmul, {}, kNoValue, {}}, {a, b});
  const std::optional<AccumulationCheck> same = check_accumulation(mm, {a, b}, r, r, DType::F32);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->k, 8);
  EXPECT_EQ(same->worst_ratio, 0.0);
  Tensor off(DType::F32, r.shape());
  for (int64_t i = 0; i < r.numel(); ++i) off.data<float>()[i] = r.data<float>()[i];
  off.data<float>()[7] += 0.25f;  // one element far from any rounding of its sum
  const std::optional<AccumulationCheck> wrong = check_accumulation(mm, {a, b}, off, r, DType::BF16);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_GT(wrong->worst_ratio, 1.0);
  EXPECT_EQ(wrong->worst_element, 7);

  DeviceInstr sum;
  sum.kind = OpKind::ReduceSum;
  sum.attrs.set("axes", std::vector<int64_t>{-1});
  const Tensor s = runtime::run_reference_op(Op{OpKind::ReduceSum, {}, kNoValue, sum.attrs}, {a});
  const std::optional<AccumulationCheck> reduced = check_accumulation(sum, {a}, s, s, DType::F32);
  ASSERT_TRUE(reduced.has_value());
  EXPECT_EQ(reduced->k, 8);

  DeviceInstr relu;
  relu.kind = OpKind::Relu;
  EXPECT_FALSE(check_accumulation(relu, {a}, a, a, DType::F32).has_value());
  DeviceInstr lofi = mm;
  lofi.attrs.set("fidelity_phases", int64_t{1});
  EXPECT_FALSE(check_accumulation(lofi, {a, b}, r, r, DType::BF16).has_value());
}

// A conv2d element is held to its own patch's bound: padding left out, its
// group's channels only (the magnitude is computed on demand for elements
// past the rounding term, so this pins that element's indexing).
TEST(AccumulationBound, AConvElementIsHeldToItsOwnPatchAndFilter) {
  constexpr int64_t kChannels = 4, kOut = 6, kSide = 5, kGroups = 2;
  Tensor x(DType::F32, {1, kChannels, kSide, kSide});
  Tensor w(DType::F32, {kOut, kChannels / kGroups, 3, 3});
  Rng rng(11);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = round_to_bf16(static_cast<float>(rng.normal()));
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = round_to_bf16(static_cast<float>(rng.normal()));
  DeviceInstr conv;
  conv.kind = OpKind::Conv2d;
  conv.attrs.set("groups", kGroups);
  conv.attrs.set("padding", std::vector<int64_t>{1, 1});
  const Tensor r = runtime::run_reference_op(Op{OpKind::Conv2d, {}, kNoValue, conv.attrs}, {x, w});
  // Output channel 4 (group 1) at the top-left corner: rows/columns -1 are padding.
  const int64_t oc = 4, element = oc * kSide * kSide;
  double l1 = 0, l2 = 0, linf = 0, f1 = 0, f2 = 0, finf = 0;
  for (int64_t c = 0; c < kChannels / kGroups; ++c) {
    for (int64_t ih = 0; ih < 2; ++ih) {
      for (int64_t iw = 0; iw < 2; ++iw) {
        const double a = std::fabs(x.data<float>()[((kChannels / kGroups + c) * kSide + ih) * kSide + iw]);
        l1 += a, l2 += a * a, linf = std::max(linf, a);
      }
    }
  }
  for (int64_t i = 0; i < w.numel() / kOut; ++i) {
    const double b = std::fabs(w.data<float>()[oc * (w.numel() / kOut) + i]);
    f1 += b, f2 += b * b, finf = std::max(finf, b);
  }
  const double magnitude = std::min({std::sqrt(l2) * std::sqrt(f2), l1 * finf, linf * f1});
  // An f32 result: its rounding term is far below the magnitude's.
  const AccumulationBound bound(18, DType::F32);
  for (const double share : {0.9, 1.1}) {
    Tensor device = r.clone();
    const double ref = r.data<float>()[element];
    device.data<float>()[element] = static_cast<float>(ref + share * bound(ref, magnitude));
    const std::optional<AccumulationCheck> c = check_accumulation(conv, {x, w}, device, r, DType::F32);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->k, 18);
    EXPECT_EQ(c->worst_element, element);
    EXPECT_NEAR(c->worst_ratio, share, 0.05) << "share " << share;
  }
}

}  // namespace
}  // namespace meshtest::runner
