// Reference dot_general and convolution against hand-computed values: batch
// dims on both sides at inner positions, a preferred result type, integer
// wrap-around; convolution's spec example (lhs dilation, strides), rhs
// dilation, window reversal, negative padding, feature and batch groups.
#include "reference_test_util.h"
#include "typed_tensor_util.h"

namespace meshtest::runtime::testing {
namespace {

TEST(ReferenceDotGeneral, BatchDimsOnBothSidesAtInnerPositions) {
  // result[b,m,n] = sum_k lhs[k,b,m] * rhs[n,b,k]
  for (DType dtype : {DType::F32, DType::F64, DType::BF16, DType::I32, DType::U16, DType::I64}) {
    const Tensor out = run_op(OpKind::DotGeneral, {counting(dtype, {2, 2, 3}), counting(dtype, {2, 2, 2})},
                              {{"lhs_batching_dims", ints({1})},
                               {"rhs_batching_dims", ints({1})},
                               {"lhs_contracting_dims", ints({0})},
                               {"rhs_contracting_dims", ints({2})},
                               {"dtype", std::string(dtype_name(dtype))}});
    ASSERT_EQ(out.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(values_of(out), (std::vector<double>{6, 30, 7, 39, 8, 48, 33, 81, 38, 94, 43, 107})) << dtype_name(dtype);
  }
}

TEST(ReferenceDotGeneral, IntegersWrapAndAPreferredTypeWidensFirst) {
  const Tensor lhs = typed(DType::I8, {1, 2}, {100, 100});
  const Tensor rhs = typed(DType::I8, {2, 1}, {100, 1});
  const Attrs matmul{{"lhs_contracting_dims", ints({1})}, {"rhs_contracting_dims", ints({0})}};
  Attrs in_i8 = matmul, in_i32 = matmul;
  in_i8.set("dtype", std::string("i8"));
  in_i32.set("dtype", std::string("i32"));
  EXPECT_EQ(values_of(run_op(OpKind::DotGeneral, {lhs, rhs}, in_i8)), (std::vector<double>{116}));  // 10100 mod 256
  const Tensor wide = run_op(OpKind::DotGeneral, {lhs, rhs}, in_i32);
  EXPECT_EQ(wide.dtype(), DType::I32);
  EXPECT_EQ(values_of(wide), (std::vector<double>{10100}));
  // No contracting dims: an outer product.
  Attrs outer{{"dtype", std::string("f64")}};
  EXPECT_EQ(values_of(run_op(OpKind::DotGeneral, {typed(DType::F64, {2}, {1, 2}), typed(DType::F64, {3}, {1, 10, 100})},
                             outer)),
            (std::vector<double>{1, 10, 100, 2, 20, 200}));
}

// A 1-D convolution in NCW layout (kernel OIW).
Attrs conv1d(std::vector<int64_t> padding, int64_t stride = 1, int64_t rhs_dilation = 1, int64_t reversal = 0) {
  return {{"window_strides", ints({stride})},
          {"padding", ints(std::move(padding))},
          {"rhs_dilation", ints({rhs_dilation})},
          {"window_reversal", ints({reversal})},
          {"input_batch_dimension", int64_t{0}},
          {"input_feature_dimension", int64_t{1}},
          {"input_spatial_dimensions", ints({2})},
          {"kernel_output_feature_dimension", int64_t{0}},
          {"kernel_input_feature_dimension", int64_t{1}},
          {"kernel_spatial_dimensions", ints({2})},
          {"output_batch_dimension", int64_t{0}},
          {"output_feature_dimension", int64_t{1}},
          {"output_spatial_dimensions", ints({2})},
          {"dtype", std::string("f32")}};
}

TEST(ReferenceConvolution, SpecExampleWithLhsDilationEveryDType) {
  for (DType dtype : {DType::I64, DType::F32, DType::BF16, DType::F64, DType::I8, DType::U32}) {
    const Tensor lhs = typed(dtype, {1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
    const Tensor rhs = typed(dtype, {3, 3, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1});
    const Tensor out = run_op(OpKind::Convolution, {lhs, rhs},
                              {{"window_strides", ints({4, 4})},
                               {"padding", ints({0, 0, 0, 0})},
                               {"lhs_dilation", ints({2, 2})},
                               {"input_batch_dimension", int64_t{0}},
                               {"input_feature_dimension", int64_t{3}},
                               {"input_spatial_dimensions", ints({1, 2})},
                               {"kernel_input_feature_dimension", int64_t{2}},
                               {"kernel_output_feature_dimension", int64_t{3}},
                               {"kernel_spatial_dimensions", ints({0, 1})},
                               {"output_batch_dimension", int64_t{0}},
                               {"output_feature_dimension", int64_t{3}},
                               {"output_spatial_dimensions", ints({1, 2})},
                               {"dtype", std::string(dtype_name(dtype))}});
    ASSERT_EQ(out.shape(), (Shape{1, 2, 2, 1}));
    EXPECT_EQ(values_of(out), (std::vector<double>{10, 26, 46, 62})) << dtype_name(dtype);
  }
}

TEST(ReferenceConvolution, RhsDilationReversalNegativePaddingAndStrides) {
  const Tensor x = typed(DType::F32, {1, 1, 5}, {1, 2, 3, 4, 5});
  const Tensor w = typed(DType::F32, {1, 1, 2}, {1, 10});
  // Padded [0 1 2 3 4 5], taps 2 apart.
  EXPECT_EQ(values_of(run_op(OpKind::Convolution, {x, w}, conv1d({1, 0}, 1, 2))),
            (std::vector<double>{20, 31, 42, 53}));
  // The same windows reversed: the tap 2 apart meets the kernel's first element.
  EXPECT_EQ(values_of(run_op(OpKind::Convolution, {x, w}, conv1d({1, 0}, 1, 2, 1))),
            (std::vector<double>{2, 13, 24, 35}));
  // Negative low padding crops the first element.
  EXPECT_EQ(values_of(run_op(OpKind::Convolution, {x, w}, conv1d({-1, 0}))), (std::vector<double>{32, 43, 54}));
  // Stride 2 over [1 2 3 4 5 0].
  EXPECT_EQ(values_of(run_op(OpKind::Convolution, {x, w}, conv1d({0, 1}, 2))), (std::vector<double>{21, 43, 5}));
}

TEST(ReferenceConvolution, FeatureGroups) {
  // Channels [1 2] [3 4] [5 6] [7 8]; output feature 0 reads channels 0-1, feature 1 channels 2-3.
  Attrs attrs = conv1d({0, 0});
  attrs.set("feature_group_count", int64_t{2});
  const Tensor out =
      run_op(OpKind::Convolution,
             {counting(DType::F32, {1, 4, 2}, 1), typed(DType::F32, {2, 2, 1}, {1, 10, 100, 1000})}, attrs);
  ASSERT_EQ(out.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values_of(out), (std::vector<double>{31, 42, 7500, 8600}));
}

TEST(ReferenceConvolution, BatchGroups) {
  // Batch [1 2] and [3 4]; output feature 0 reads batch 0, feature 1 batch 1.
  Attrs attrs = conv1d({0, 0});
  attrs.set("batch_group_count", int64_t{2});
  const Tensor out =
      run_op(OpKind::Convolution, {counting(DType::F32, {2, 1, 2}, 1), typed(DType::F32, {2, 1, 1}, {2, 5})}, attrs);
  ASSERT_EQ(out.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values_of(out), (std::vector<double>{2, 4, 15, 20}));
}

}  // namespace
}  // namespace meshtest::runtime::testing
