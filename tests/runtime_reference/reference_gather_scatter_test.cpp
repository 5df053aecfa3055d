// Reference gather and scatter against the StableHLO spec's examples (batching
// dims on both sides) and hand-computed cases: start clamping, an implicit
// index vector, out-of-bounds windows skipped whole, non-unique indices
// applied in order, every combiner, integer wrap-around.
#include <cmath>

#include "reference_test_util.h"
#include "typed_tensor_util.h"

namespace meshtest::runtime::testing {
namespace {

// The spec examples' index tensor [2,2,3,2] (its [0, 9] is out of bounds).
Tensor spec_indices() {
  return typed(DType::I64, {2, 2, 3, 2}, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
}

TEST(ReferenceGather, SpecExampleWithBatchingDims) {
  const std::vector<double> expected = {1,  2,  3,  4,  3,  4,  5,  6,  13, 14, 15, 16, 33, 34, 35, 36,
                                        35, 36, 37, 38, 41, 42, 43, 44, 1,  2,  3,  4,  13, 14, 15, 16,
                                        21, 22, 23, 24, 43, 44, 45, 46, 33, 34, 35, 36, 27, 28, 29, 30};
  for (DType dtype : {DType::I32, DType::BF16, DType::F64, DType::U16}) {
    const Tensor out = run_op(OpKind::Gather, {counting(dtype, {2, 3, 4, 2}, 1), spec_indices()},
                              {{"offset_dims", ints({3, 4})},
                               {"collapsed_slice_dims", ints({1})},
                               {"operand_batching_dims", ints({0})},
                               {"start_indices_batching_dims", ints({1})},
                               {"start_index_map", ints({2, 1})},
                               {"index_vector_dim", int64_t{3}},
                               {"slice_sizes", ints({1, 1, 2, 2})}});
    ASSERT_EQ(out.shape(), (Shape{2, 2, 3, 2, 2}));
    EXPECT_EQ(values_of(out), expected) << dtype_name(dtype);
  }
}

Attrs row_gather(int64_t index_vector_dim) {
  return {{"offset_dims", ints({1})},
          {"collapsed_slice_dims", ints({0})},
          {"start_index_map", ints({0})},
          {"index_vector_dim", index_vector_dim},
          {"slice_sizes", ints({1, 3})}};
}

TEST(ReferenceGather, RowsWithClampedStartsAndAnImplicitIndexVector) {
  const Tensor table = counting(DType::F32, {4, 3});
  // Index 5 clamps to the last row (4 - 1); -2 to the first.
  EXPECT_EQ(values_of(run_op(OpKind::Gather, {table, typed(DType::I32, {3, 1}, {2, 5, -2})}, row_gather(1))),
            (std::vector<double>{6, 7, 8, 9, 10, 11, 0, 1, 2}));
  // index_vector_dim = rank(indices): each index is a one-element vector.
  const Tensor out = run_op(OpKind::Gather, {table, typed(DType::U8, {2}, {1, 3})}, row_gather(1));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of(out), (std::vector<double>{3, 4, 5, 9, 10, 11}));
}

TEST(ReferenceScatter, SpecExampleWithBatchingDimsSkipsTheOutOfBoundsWindow) {
  const std::vector<double> expected = {3,  4,  6,  7,  6,  7,  7,  8,  9,  10, 11, 12, 15, 16, 17, 18,
                                        17, 18, 19, 20, 22, 23, 24, 25, 25, 26, 28, 29, 30, 31, 31, 32,
                                        35, 36, 38, 39, 38, 39, 39, 40, 41, 42, 44, 45, 46, 47, 47, 48};
  for (DType dtype : {DType::I64, DType::F32, DType::F16, DType::U8}) {
    std::vector<double> ones(48, 1.0);
    const Tensor out =
        run_op(OpKind::Scatter, {counting(dtype, {2, 3, 4, 2}, 1), spec_indices(), typed(dtype, {2, 2, 3, 2, 2}, ones)},
               {{"update_window_dims", ints({3, 4})},
                {"inserted_window_dims", ints({1})},
                {"input_batching_dims", ints({0})},
                {"scatter_indices_batching_dims", ints({1})},
                {"scatter_dims_to_operand_dims", ints({2, 1})},
                {"index_vector_dim", int64_t{3}},
                {"combiner", std::string("add")}});
    EXPECT_EQ(values_of(out), expected) << dtype_name(dtype);
  }
}

Attrs element_scatter(const char* combiner) {
  return {{"inserted_window_dims", ints({0})},
          {"scatter_dims_to_operand_dims", ints({0})},
          {"index_vector_dim", int64_t{1}},
          {"combiner", std::string(combiner)}};
}

TEST(ReferenceScatter, NonUniqueIndicesApplyInOrder) {
  const Tensor indices = typed(DType::I32, {3, 1}, {1, 3, 1});
  const Tensor updates = typed(DType::I32, {3}, {5, 6, 7});
  EXPECT_EQ(values_of(run_op(OpKind::Scatter, {typed(DType::I32, {4}, {0, 0, 0, 0}), indices, updates},
                             element_scatter("assign"))),
            (std::vector<double>{0, 7, 0, 6}));
  EXPECT_EQ(values_of(run_op(OpKind::Scatter, {typed(DType::I32, {4}, {0, 0, 0, 0}), indices, updates},
                             element_scatter("add"))),
            (std::vector<double>{0, 12, 0, 6}));
  EXPECT_EQ(values_of(run_op(OpKind::Scatter, {typed(DType::I32, {4}, {1, 1, 1, 1}), indices, updates},
                             element_scatter("mul"))),
            (std::vector<double>{1, 35, 1, 6}));
  EXPECT_EQ(values_of(run_op(OpKind::Scatter, {typed(DType::I32, {4}, {6, 6, 6, 6}), indices, updates},
                             element_scatter("min"))),
            (std::vector<double>{6, 5, 6, 6}));
  EXPECT_EQ(values_of(run_op(OpKind::Scatter, {typed(DType::I32, {4}, {6, 6, 6, 6}), indices, updates},
                             element_scatter("xor"))),
            (std::vector<double>{6, 6 ^ 5 ^ 7, 6, 6 ^ 6}));
}

TEST(ReferenceScatter, MaxPropagatesNaNAndIntegersWrap) {
  const Tensor out = run_op(
      OpKind::Scatter,
      {typed(DType::F64, {2}, {1, 5}), typed(DType::I64, {3, 1}, {0, 1, 0}), typed(DType::F64, {3}, {3, NAN, 2})},
      element_scatter("max"));
  const std::vector<double> v = values_of(out);
  EXPECT_EQ(v[0], 3);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(
      values_of(run_op(OpKind::Scatter,
                       {typed(DType::U8, {1}, {250}), typed(DType::I32, {1, 1}, {0}), typed(DType::U8, {1}, {10})},
                       element_scatter("add"))),
      (std::vector<double>{4}));
  EXPECT_EQ(values_of(run_op(OpKind::Scatter,
                             {typed(DType::I8, {1}, {100}), typed(DType::I32, {1, 1}, {0}), typed(DType::I8, {1}, {3})},
                             element_scatter("mul"))),
            (std::vector<double>{44}));  // 300 mod 256
  EXPECT_EQ(values_of(run_op(
                OpKind::Scatter,
                {typed(DType::Bool, {2}, {0, 1}), typed(DType::I32, {2, 1}, {0, 1}), typed(DType::Bool, {2}, {1, 1})},
                element_scatter("xor"))),
            (std::vector<double>{1, 0}));
}

TEST(ReferenceScatter, AWindowNotWhollyInsideIsSkipped) {
  // Windows of 3 along a dimension of 5: start 3 would cover 3..5 and -1 would
  // start outside; both are skipped whole, start 1 lands.
  const Tensor out = run_op(OpKind::Scatter,
                            {typed(DType::F32, {5}, {0, 0, 0, 0, 0}), typed(DType::I64, {3, 1}, {3, 1, -1}),
                             typed(DType::F32, {3, 3}, {10, 20, 30, 1, 2, 3, 40, 50, 60})},
                            {{"update_window_dims", ints({1})},
                             {"scatter_dims_to_operand_dims", ints({0})},
                             {"index_vector_dim", int64_t{1}},
                             {"combiner", std::string("add")}});
  EXPECT_EQ(values_of(out), (std::vector<double>{0, 1, 2, 3, 0}));
}

}  // namespace
}  // namespace meshtest::runtime::testing
