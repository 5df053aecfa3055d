// The structural kernels called directly on f16/bf16/f64 tensors (the
// executor widens f16/bf16 to f32 before they run; these paths serve a
// caller that holds the narrow types): results keep the element type,
// scatter rounds each update as it lands, reduce and dot_general round once.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/reference/reference_structural.h"
#include "typed_tensor_util.h"

namespace meshtest::runtime::testing {
namespace {

namespace ref = reference;
constexpr double kEighth = 1.0 / 256;  // half of bf16's spacing at 1.0

TEST(ReferenceStructuralNative, ScatterRoundsEachUpdateToTheElementType) {
  // bf16: 1 + 2^-8 ties back to 1 each time; one rounding of the sum would give 1 + 2^-7.
  const Tensor out = ref::scatter(typed(DType::BF16, {1}, {1}), typed(DType::I32, {2, 1}, {0, 0}),
                                  typed(DType::BF16, {2}, {kEighth, kEighth}),
                                  {{"inserted_window_dims", ints({0})},
                                   {"scatter_dims_to_operand_dims", ints({0})},
                                   {"index_vector_dim", int64_t{1}},
                                   {"combiner", std::string("add")}});
  EXPECT_EQ(out.dtype(), DType::BF16);
  EXPECT_EQ(values_of(out), (std::vector<double>{1}));
}

TEST(ReferenceStructuralNative, ReduceAndDotGeneralRoundOnce) {
  const Tensor sum = ref::reduce_with(typed(DType::BF16, {3}, {1, kEighth, kEighth}), scalar(DType::BF16, 0),
                                      {{"dimensions", ints({0})}, {"combiner", std::string("add")}});
  EXPECT_EQ(sum.dtype(), DType::BF16);
  EXPECT_EQ(values_of(sum), (std::vector<double>{1 + 2 * kEighth}));
  const Tensor dot = ref::dot_general(
      typed(DType::F16, {1, 3}, {1, 1, 1}), typed(DType::F16, {3, 1}, {2048, 1, 1}),
      {{"lhs_contracting_dims", ints({1})}, {"rhs_contracting_dims", ints({0})}, {"dtype", std::string("f16")}});
  EXPECT_EQ(dot.dtype(), DType::F16);
  EXPECT_EQ(values_of(dot),
            (std::vector<double>{2050}));  // f16 steps by 2 at 2048: rounding each partial sum would give 2048
  const Tensor wide = ref::dot_general(
      typed(DType::F64, {2}, {1e300, 1e-300}), typed(DType::F64, {2}, {1, 1}),
      {{"lhs_contracting_dims", ints({0})}, {"rhs_contracting_dims", ints({0})}, {"dtype", std::string("f64")}});
  EXPECT_EQ(wide.dtype(), DType::F64);
  EXPECT_EQ(values_of(wide), (std::vector<double>{1e300}));
}

TEST(ReferenceStructuralNative, MovementAndSortKeepNarrowTypes) {
  const Tensor x = typed(DType::F16, {4}, {3, -0.0, NAN, 0.0});
  const Tensor order = ref::sort_permutation({x}, {{"dimension", int64_t{0}}});
  EXPECT_EQ(values_of(order), (std::vector<double>{1, 3, 0, 2}));
  const Tensor taken = ref::take_along_axis(x, order, {{"axis", int64_t{0}}});
  EXPECT_EQ(taken.dtype(), DType::F16);
  const Tensor reversed = ref::reverse(typed(DType::F64, {3}, {1, 2, 3}), {{"dimensions", ints({0})}});
  EXPECT_EQ(values_of(reversed), (std::vector<double>{3, 2, 1}));
}

}  // namespace
}  // namespace meshtest::runtime::testing
