// Reference kernels of the StableHLO data-movement ops against hand-computed
// values (the spec's examples among them), over every element dtype:
// broadcast_in_dim, pad (interior and negative edges), reverse,
// dynamic_slice / dynamic_update_slice (start clamping), take_along_axis.
#include "core/error.h"
#include "reference_test_util.h"
#include "typed_tensor_util.h"

namespace meshtest::runtime::testing {
namespace {

// Every dtype that holds the small integers these tests move.
const DType kNumericDTypes[] = {DType::F32, DType::BF16, DType::F16, DType::F64, DType::I8,  DType::I16,
                                DType::I32, DType::I64,  DType::U8,  DType::U16, DType::U32, DType::U64};

TEST(ReferenceMovement, BroadcastInDimSpecExampleEveryDType) {
  for (DType dtype : kNumericDTypes) {
    const Tensor out = run_op(OpKind::BroadcastInDim, {typed(dtype, {1, 3}, {1, 2, 3})},
                              {{"shape", ints({2, 3, 2})}, {"broadcast_dimensions", ints({2, 1})}});
    EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(values_of(out), (std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})) << dtype_name(dtype);
  }
  const Tensor flags = run_op(OpKind::BroadcastInDim, {typed(DType::Bool, {2}, {1, 0})},
                              {{"shape", ints({2, 2})}, {"broadcast_dimensions", ints({0})}});
  EXPECT_EQ(flags.dtype(), DType::Bool);
  EXPECT_EQ(values_of(flags), (std::vector<double>{1, 1, 0, 0}));
}

TEST(ReferenceMovement, PadInteriorAndEdges) {
  for (DType dtype : kNumericDTypes) {
    const Tensor out = run_op(OpKind::Pad, {typed(dtype, {2, 3}, {1, 2, 3, 4, 5, 6}), scalar(dtype, 0)},
                              {{"low", ints({0, 1})}, {"high", ints({2, 1})}, {"interior", ints({1, 2})}});
    ASSERT_EQ(out.shape(), (Shape{5, 9}));
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 5,
                                                   0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
        << dtype_name(dtype);
  }
}

TEST(ReferenceMovement, PadNegativeEdgesCropTheInteriorPaddedOperand) {
  // [1 p 2 p 3 p 4 p 5] minus one element in front and two behind.
  const Tensor out = run_op(OpKind::Pad, {typed(DType::I32, {5}, {1, 2, 3, 4, 5}), scalar(DType::I32, 9)},
                            {{"low", ints({-1})}, {"high", ints({-2})}, {"interior", ints({1})}});
  EXPECT_EQ(values_of(out), (std::vector<double>{9, 2, 9, 3, 9, 4}));
  // Cropped to nothing in one dimension.
  const Tensor empty = run_op(OpKind::Pad, {typed(DType::F32, {2, 2}, {1, 2, 3, 4}), scalar(DType::F32, 0)},
                              {{"low", ints({-2, 0})}, {"high", ints({0, 1})}});
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
}

TEST(ReferenceMovement, Reverse) {
  for (DType dtype : kNumericDTypes) {
    const Tensor x = typed(dtype, {3, 2}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(values_of(run_op(OpKind::Reverse, {x}, {{"dimensions", ints({1})}})),
              (std::vector<double>{2, 1, 4, 3, 6, 5}));
    EXPECT_EQ(values_of(run_op(OpKind::Reverse, {x}, {{"dimensions", ints({0, 1})}})),
              (std::vector<double>{6, 5, 4, 3, 2, 1}));
  }
}

TEST(ReferenceMovement, DynamicSliceClampsStarts) {
  for (DType dtype : kNumericDTypes) {
    const Tensor x = counting(dtype, {4, 4});
    const Attrs sizes{{"slice_sizes", ints({2, 2})}};
    // Starts (-1, 3) clamp to (0, 2); (5, 1) to (2, 1).
    EXPECT_EQ(values_of(run_op(OpKind::DynamicSlice, {x, scalar(DType::I64, -1), scalar(DType::I64, 3)}, sizes)),
              (std::vector<double>{2, 3, 6, 7}))
        << dtype_name(dtype);
    EXPECT_EQ(values_of(run_op(OpKind::DynamicSlice, {x, scalar(DType::U8, 5), scalar(DType::U8, 1)}, sizes)),
              (std::vector<double>{9, 10, 13, 14}));
  }
}

TEST(ReferenceMovement, DynamicUpdateSliceClampsStarts) {
  for (DType dtype : kNumericDTypes) {
    const Tensor out =
        run_op(OpKind::DynamicUpdateSlice, {counting(dtype, {4, 4}), typed(dtype, {2, 2}, {100, 101, 102, 103}),
                                            scalar(DType::I32, -1), scalar(DType::I32, 3)});
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 1, 100, 101, 4, 5, 102, 103, 8, 9, 10, 11, 12, 13, 14, 15}))
        << dtype_name(dtype);
  }
}

TEST(ReferenceMovement, TakeAlongAxis) {
  const Tensor x = typed(DType::F64, {2, 3}, {10, 20, 30, 40, 50, 60});
  EXPECT_EQ(
      values_of(run_op(OpKind::TakeAlongAxis, {x, typed(DType::I64, {2, 2}, {2, 0, 1, 1})}, {{"axis", int64_t{1}}})),
      (std::vector<double>{30, 10, 50, 50}));
  EXPECT_EQ(
      values_of(run_op(OpKind::TakeAlongAxis, {x, typed(DType::I32, {1, 3}, {1, 0, 1})}, {{"axis", int64_t{-2}}})),
      (std::vector<double>{40, 20, 60}));
  EXPECT_THROW(run_op(OpKind::TakeAlongAxis, {x, typed(DType::I64, {2, 1}, {3, 0})}, {{"axis", int64_t{1}}}),
               RuntimeError);
}

}  // namespace
}  // namespace meshtest::runtime::testing
