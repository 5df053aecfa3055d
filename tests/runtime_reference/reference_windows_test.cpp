// Reference reduce, reduce_arg, reduce_window, select_and_scatter and
// sort_permutation against hand-computed values and the StableHLO spec's
// examples: init participation, NaN propagation, bool and wrap-around
// combiners, first-index ties, padding and dilations, stable multi-key sorts.
#include <cmath>
#include <limits>

#include "reference_test_util.h"
#include "typed_tensor_util.h"

namespace meshtest::runtime::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Attrs reduce_attrs(std::vector<int64_t> dims, const char* combiner) {
  return {{"dimensions", ints(std::move(dims))}, {"combiner", std::string(combiner)}};
}

TEST(ReferenceReduce, InitParticipatesOnce) {
  const Tensor x = typed(DType::I64, {1, 6}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {x, scalar(DType::I64, 0)}, reduce_attrs({1}, "add"))),
            (std::vector<double>{15}));
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {x, scalar(DType::I64, 10)}, reduce_attrs({1}, "add"))),
            (std::vector<double>{25}));
  // Over dims 0 and 2 of x[i,j,k] = 6i + 2j + k: 8j + 14.
  for (DType dtype : {DType::F32, DType::F64, DType::BF16, DType::I16, DType::U32}) {
    EXPECT_EQ(
        values_of(run_op(OpKind::Reduce, {counting(dtype, {2, 3, 2}), scalar(dtype, 0)}, reduce_attrs({0, 2}, "add"))),
        (std::vector<double>{14, 22, 30}))
        << dtype_name(dtype);
  }
}

TEST(ReferenceReduce, MaxPropagatesNaNBoolAndIntegersWrap) {
  const std::vector<double> v =
      values_of(run_op(OpKind::Reduce, {typed(DType::F32, {2, 2}, {1, NAN, 3, 2}), scalar(DType::F32, -kInf)},
                       reduce_attrs({1}, "max")));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 3);
  const Tensor flags = typed(DType::Bool, {2, 3}, {1, 1, 1, 1, 0, 1});
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {flags, scalar(DType::Bool, 1)}, reduce_attrs({1}, "and"))),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {flags, scalar(DType::Bool, 0)}, reduce_attrs({1}, "add"))),
            (std::vector<double>{1, 1}));
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {typed(DType::U8, {2}, {200, 100}), scalar(DType::U8, 0)},
                             reduce_attrs({0}, "add"))),
            (std::vector<double>{44}));
  EXPECT_EQ(values_of(run_op(OpKind::Reduce, {typed(DType::I8, {2}, {-100, -100}), scalar(DType::I8, 1)},
                             reduce_attrs({0}, "mul"))),
            (std::vector<double>{16}));  // 10000 mod 256
}

Attrs arg_attrs(int64_t dim, const char* direction, const char* dtype = "i64") {
  return {{"dimension", dim}, {"direction", std::string(direction)}, {"dtype", std::string(dtype)}};
}

TEST(ReferenceReduceArg, TiesTakeTheFirstIndexAndNaNWins) {
  const Tensor ties = typed(DType::F32, {4}, {3, 1, 3, 1});
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {ties}, arg_attrs(0, "max"))), (std::vector<double>{0}));
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {ties}, arg_attrs(0, "min"))), (std::vector<double>{1}));
  const Tensor nans = typed(DType::F64, {4}, {1, NAN, 5, NAN});
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {nans}, arg_attrs(0, "max"))), (std::vector<double>{1}));
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {nans}, arg_attrs(0, "min"))), (std::vector<double>{1}));
  // Along dimension 0 of [[1 5] [4 2] [4 7]], as i32 and u8 indices.
  const Tensor x = typed(DType::I16, {3, 2}, {1, 5, 4, 2, 4, 7});
  const Tensor max = run_op(OpKind::ReduceArg, {x}, arg_attrs(0, "max", "i32"));
  EXPECT_EQ(max.dtype(), DType::I32);
  EXPECT_EQ(values_of(max), (std::vector<double>{1, 2}));
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {x}, arg_attrs(-2, "min", "u8"))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values_of(run_op(OpKind::ReduceArg, {typed(DType::Bool, {3}, {0, 1, 1})}, arg_attrs(0, "max"))),
            (std::vector<double>{1}));
}

TEST(ReferenceReduceWindow, SpecExampleWithPaddingAndDilations) {
  for (DType dtype : {DType::I64, DType::F32, DType::F16, DType::U8}) {
    const Tensor out = run_op(OpKind::ReduceWindow, {typed(dtype, {3, 2}, {1, 2, 3, 4, 5, 6}), scalar(dtype, 0)},
                              {{"window_dimensions", ints({2, 1})},
                               {"window_strides", ints({4, 1})},
                               {"base_dilations", ints({2, 1})},
                               {"window_dilations", ints({3, 1})},
                               {"padding", ints({2, 1, 0, 0})},
                               {"combiner", std::string("add")}});
    ASSERT_EQ(out.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 0, 3, 4})) << dtype_name(dtype);
  }
}

TEST(ReferenceReduceWindow, PaddingHoldsTheInitValue) {
  const Attrs max_pool{{"window_dimensions", ints({2})}, {"padding", ints({1, 1})}, {"combiner", std::string("max")}};
  EXPECT_EQ(
      values_of(run_op(OpKind::ReduceWindow, {typed(DType::F32, {3}, {1, 3, 2}), scalar(DType::F32, -kInf)}, max_pool)),
      (std::vector<double>{1, 3, 3, 2}));
  // With add and init 1, the padded element counts as one more init: [1+1+1, 1+1+2].
  const Attrs sum{{"window_dimensions", ints({2})}, {"padding", ints({1, 0})}, {"combiner", std::string("add")}};
  EXPECT_EQ(values_of(run_op(OpKind::ReduceWindow, {typed(DType::I32, {2}, {1, 2}), scalar(DType::I32, 1)}, sum)),
            (std::vector<double>{3, 4}));
}

Attrs select_attrs(std::vector<int64_t> window, std::vector<int64_t> strides, std::vector<int64_t> padding,
                   const char* select) {
  return {{"window_dimensions", ints(std::move(window))},
          {"window_strides", ints(std::move(strides))},
          {"padding", ints(std::move(padding))},
          {"select", std::string(select)}};
}

TEST(ReferenceSelectAndScatter, SpecExample) {
  for (DType dtype : {DType::I64, DType::F32, DType::BF16, DType::F64}) {
    const Tensor out =
        run_op(OpKind::SelectAndScatter,
               {typed(dtype, {4, 2}, {1, 5, 2, 5, 3, 6, 4, 4}), typed(dtype, {2, 2}, {5, 6, 7, 8}), scalar(dtype, 0)},
               select_attrs({3, 1}, {2, 1}, {0, 1, 0, 0}, "ge"));
    EXPECT_EQ(values_of(out), (std::vector<double>{0, 0, 0, 0, 5, 14, 7, 0})) << dtype_name(dtype);
  }
}

TEST(ReferenceSelectAndScatter, TiesFollowTheSelectFunction) {
  const Tensor operand = typed(DType::F32, {2}, {5, 5});
  const Tensor source = typed(DType::F32, {1}, {1});
  EXPECT_EQ(values_of(run_op(OpKind::SelectAndScatter, {operand, source, scalar(DType::F32, 0)},
                             select_attrs({2}, {1}, {0, 0}, "ge"))),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(values_of(run_op(OpKind::SelectAndScatter, {operand, source, scalar(DType::F32, 0)},
                             select_attrs({2}, {1}, {0, 0}, "gt"))),
            (std::vector<double>{0, 1}));
}

Attrs sort_attrs(int64_t dim, std::vector<int64_t> directions, int64_t total_order = 0) {
  return {{"dimension", dim},
          {"directions", ints(std::move(directions))},
          {"total_order", total_order},
          {"is_stable", int64_t{1}}};
}

TEST(ReferenceSortPermutation, TwoKeysStable) {
  const Tensor k0 = typed(DType::I32, {5}, {2, 1, 2, 1, 0});
  const Tensor k1 = typed(DType::F32, {5}, {5, 9, 3, 9, 7});
  const Tensor asc = run_op(OpKind::SortPermutation, {k0, k1}, sort_attrs(0, {0, 0}));
  EXPECT_EQ(asc.dtype(), DType::I64);
  EXPECT_EQ(values_of(asc), (std::vector<double>{4, 1, 3, 2, 0}));
  EXPECT_EQ(values_of(run_op(OpKind::SortPermutation, {k0, k1}, sort_attrs(0, {0, 1}))),
            (std::vector<double>{4, 1, 3, 0, 2}));
  // Along dimension 0 of [[3 1] [1 2] [2 0]].
  EXPECT_EQ(
      values_of(run_op(OpKind::SortPermutation, {typed(DType::I8, {3, 2}, {3, 1, 1, 2, 2, 0})}, sort_attrs(0, {0}))),
      (std::vector<double>{1, 2, 2, 0, 0, 1}));
}

TEST(ReferenceSortPermutation, NaNAndSignedZeros) {
  const Tensor x = typed(DType::F32, {7}, {3, NAN, -1, 0.0, -0.0, kInf, -NAN});
  // By value: -0 == +0 (input order kept), every NaN above +inf.
  EXPECT_EQ(values_of(run_op(OpKind::SortPermutation, {x}, sort_attrs(0, {0}))),
            (std::vector<double>{2, 3, 4, 0, 5, 1, 6}));
  EXPECT_EQ(values_of(run_op(OpKind::SortPermutation, {x}, sort_attrs(0, {1}))),
            (std::vector<double>{1, 6, 5, 0, 3, 4, 2}));
  // IEEE totalOrder: -NaN < -1 < -0 < +0 < 3 < inf < +NaN.
  EXPECT_EQ(values_of(run_op(OpKind::SortPermutation, {x}, sort_attrs(0, {0}, 1))),
            (std::vector<double>{6, 2, 4, 3, 0, 5, 1}));
}

}  // namespace
}  // namespace meshtest::runtime::testing
