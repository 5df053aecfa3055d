// The chip's kernels of the StableHLO structural ops (96..110) against the
// CPU reference on the same single-op graphs: integer results exactly, bf16
// results within bf16 rounding. Inputs are small integers (exact in bf16),
// so data movement, max/min and sorting agree exactly for floats too.
#include <cmath>

#include "device_test_util.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::testing_util {
namespace {

using Ints = std::vector<int64_t>;

// A tensor of `dtype` holding ((i * 7 + offset) mod modulus) - shift for element i.
Tensor pattern(DType dtype, const Shape& shape, int64_t modulus = 11, int64_t shift = 5, int64_t offset = 3) {
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<float>((static_cast<int64_t>(i) * 7 + offset) % modulus - shift);
  }
  return Tensor::from_f32(shape, v).to(dtype);
}

Tensor index_scalar(DType dtype, int64_t v) { return Tensor::from_i64({}, {v}).to(dtype); }

// Runs one op on the device and on the reference; every element must agree
// within rel * |reference| + abs (0, 0: exactly).
void expect_agreement(OpKind kind, const std::vector<Tensor>& inputs, const Attrs& attrs, double rel = 0,
                      double abs = 0) {
  const OneOpGraph one = one_op_graph(kind, inputs, attrs);
  const Tensor device = run_device(one.graph, one.feed).at(0);
  const Tensor golden = runtime::run_reference(one.graph, one.feed).at(0);
  ASSERT_EQ(device.shape(), golden.shape()) << op_name(kind);
  ASSERT_EQ(is_floating(device.dtype()), is_floating(golden.dtype())) << op_name(kind);
  for (int64_t i = 0; i < golden.numel(); ++i) {
    const double d = device.element_as_double(i), r = golden.element_as_double(i);
    if (std::isnan(r)) {
      EXPECT_TRUE(std::isnan(d)) << op_name(kind) << " element " << i;
      continue;
    }
    EXPECT_LE(std::fabs(d - r), rel * std::fabs(r) + abs)
        << op_name(kind) << " element " << i << ": device " << d << ", reference " << r;
  }
}

TEST(DeviceStructural, DataMovementMatchesTheReference) {
  for (DType dtype : {DType::F32, DType::I32, DType::I8, DType::U16, DType::I64}) {
    expect_agreement(OpKind::BroadcastInDim, {pattern(dtype, {3, 1})},
                     {{"shape", Ints{2, 3, 4}}, {"broadcast_dimensions", Ints{1, 2}}});
    expect_agreement(OpKind::Pad, {pattern(dtype, {3, 4}), index_scalar(dtype, 9)},
                     {{"low", Ints{-1, 2}}, {"high", Ints{2, -1}}, {"interior", Ints{1, 2}}});
    expect_agreement(OpKind::Reverse, {pattern(dtype, {3, 4, 2})}, {{"dimensions", Ints{0, 2}}});
    expect_agreement(OpKind::DynamicSlice,
                     {pattern(dtype, {5, 6}), index_scalar(DType::I32, 4), index_scalar(DType::I32, -2)},
                     {{"slice_sizes", Ints{3, 2}}});
    expect_agreement(
        OpKind::DynamicUpdateSlice,
        {pattern(dtype, {5, 6}), pattern(dtype, {2, 3}, 13, 0), index_scalar(DType::U8, 4), index_scalar(DType::U8, 1)},
        {});
    expect_agreement(OpKind::TakeAlongAxis, {pattern(dtype, {3, 5}), pattern(DType::I64, {3, 4}, 5, 0)},
                     {{"axis", int64_t{1}}});
  }
}

TEST(DeviceStructural, GatherAndScatterMatchTheReference) {
  const Tensor indices =
      Tensor::from_i64({2, 2, 3, 2}, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 9, 0, 0, 2, 1, 2, 2, 1, 2, 0, 1, 1, 0});
  const Attrs gather{{"offset_dims", Ints{3, 4}},        {"collapsed_slice_dims", Ints{1}},
                     {"operand_batching_dims", Ints{0}}, {"start_indices_batching_dims", Ints{1}},
                     {"start_index_map", Ints{2, 1}},    {"index_vector_dim", int64_t{3}},
                     {"slice_sizes", Ints{1, 1, 2, 2}}};
  const Attrs rows{{"offset_dims", Ints{1}},
                   {"collapsed_slice_dims", Ints{0}},
                   {"start_index_map", Ints{0}},
                   {"index_vector_dim", int64_t{1}},
                   {"slice_sizes", Ints{1, 4}}};
  for (const char* combiner : {"add", "assign", "max", "mul"}) {
    const Attrs scatter{{"update_window_dims", Ints{3, 4}},
                        {"inserted_window_dims", Ints{1}},
                        {"input_batching_dims", Ints{0}},
                        {"scatter_indices_batching_dims", Ints{1}},
                        {"scatter_dims_to_operand_dims", Ints{2, 1}},
                        {"index_vector_dim", int64_t{3}},
                        {"combiner", std::string(combiner)}};
    for (DType dtype : {DType::F32, DType::I32, DType::U8}) {
      expect_agreement(OpKind::Scatter,
                       {pattern(dtype, {2, 3, 4, 2}, 7, 0), indices, pattern(dtype, {2, 2, 3, 2, 2}, 5, 0)}, scatter);
    }
  }
  for (DType dtype : {DType::F32, DType::I16, DType::I64}) {
    expect_agreement(OpKind::Gather, {pattern(dtype, {2, 3, 4, 2}), indices}, gather);
    expect_agreement(OpKind::Gather,
                     {pattern(dtype, {6, 4}), Tensor::from_i64({5, 1}, {3, 0, 7, -1, 5}).to(DType::I32)}, rows);
  }
}

TEST(DeviceStructural, DotGeneralAndConvolutionMatchTheReference) {
  const Attrs dot{{"lhs_batching_dims", Ints{1}},
                  {"rhs_batching_dims", Ints{1}},
                  {"lhs_contracting_dims", Ints{0, 3}},
                  {"rhs_contracting_dims", Ints{3, 0}},
                  {"dtype", std::string("f32")}};
  expect_agreement(OpKind::DotGeneral, {pattern(DType::F32, {3, 2, 5, 4}), pattern(DType::F32, {4, 2, 6, 3})}, dot,
                   1e-2, 1e-2);
  Attrs int_dot = dot;
  int_dot.set("dtype", std::string("i32"));
  expect_agreement(OpKind::DotGeneral, {pattern(DType::I32, {3, 2, 5, 4}), pattern(DType::I32, {4, 2, 6, 3})}, int_dot);
  const Attrs conv{{"window_strides", Ints{2, 1}},
                   {"padding", Ints{1, 1, 0, 2}},
                   {"lhs_dilation", Ints{1, 2}},
                   {"rhs_dilation", Ints{2, 1}},
                   {"input_batch_dimension", int64_t{0}},
                   {"input_feature_dimension", int64_t{3}},
                   {"input_spatial_dimensions", Ints{1, 2}},
                   {"kernel_input_feature_dimension", int64_t{2}},
                   {"kernel_output_feature_dimension", int64_t{3}},
                   {"kernel_spatial_dimensions", Ints{0, 1}},
                   {"output_batch_dimension", int64_t{0}},
                   {"output_feature_dimension", int64_t{3}},
                   {"output_spatial_dimensions", Ints{1, 2}},
                   {"feature_group_count", int64_t{2}},
                   {"dtype", std::string("f32")}};
  expect_agreement(OpKind::Convolution, {pattern(DType::F32, {2, 7, 5, 4}), pattern(DType::F32, {2, 3, 2, 6})}, conv,
                   1e-2, 1e-2);
  Attrs int_conv = conv;
  int_conv.set("dtype", std::string("i64"));
  expect_agreement(OpKind::Convolution, {pattern(DType::I64, {2, 7, 5, 4}), pattern(DType::I64, {2, 3, 2, 6})},
                   int_conv);
  Attrs batch_groups = conv;
  batch_groups.set("feature_group_count", int64_t{1});
  batch_groups.set("batch_group_count", int64_t{2});
  expect_agreement(OpKind::Convolution, {pattern(DType::F32, {4, 7, 5, 2}), pattern(DType::F32, {2, 3, 2, 6})},
                   batch_groups, 1e-2, 1e-2);
}

TEST(DeviceStructural, ReductionsWindowsAndSortsMatchTheReference) {
  for (const char* combiner : {"add", "max", "min"}) {
    const Attrs reduce{{"dimensions", Ints{0, 2}}, {"combiner", std::string(combiner)}};
    expect_agreement(OpKind::Reduce, {pattern(DType::F32, {4, 3, 5}), index_scalar(DType::F32, 1)}, reduce, 1e-2, 1e-2);
    expect_agreement(OpKind::Reduce, {pattern(DType::I64, {4, 3, 5}), index_scalar(DType::I64, 1)}, reduce);
    const Attrs window{{"window_dimensions", Ints{2, 3}},
                       {"window_strides", Ints{1, 2}},
                       {"padding", Ints{1, 0, 1, 1}},
                       {"base_dilations", Ints{1, 2}},
                       {"combiner", std::string(combiner)}};
    expect_agreement(OpKind::ReduceWindow, {pattern(DType::F32, {4, 5}), index_scalar(DType::F32, 0)}, window, 1e-2,
                     1e-2);
    expect_agreement(OpKind::ReduceWindow, {pattern(DType::I32, {4, 5}), index_scalar(DType::I32, 0)}, window);
  }
  for (const char* direction : {"max", "min"}) {
    expect_agreement(OpKind::ReduceArg, {pattern(DType::F32, {4, 6})},
                     {{"dimension", int64_t{1}}, {"direction", std::string(direction)}, {"dtype", std::string("i32")}});
    expect_agreement(OpKind::ReduceArg, {pattern(DType::U8, {4, 6})},
                     {{"dimension", int64_t{0}}, {"direction", std::string(direction)}});
  }
  for (const char* select : {"ge", "gt"}) {
    expect_agreement(OpKind::SelectAndScatter,
                     {pattern(DType::F32, {5, 4}, 5), pattern(DType::F32, {2, 2}), index_scalar(DType::F32, 0)},
                     {{"window_dimensions", Ints{3, 2}},
                      {"window_strides", Ints{2, 2}},
                      {"padding", Ints{0, 1, 0, 0}},
                      {"select", std::string(select)}},
                     1e-2, 1e-2);
  }
  expect_agreement(OpKind::SortPermutation, {pattern(DType::F32, {3, 8}, 4), pattern(DType::I32, {3, 8}, 3)},
                   {{"dimension", int64_t{1}}, {"directions", Ints{0, 1}}});
  expect_agreement(OpKind::SortPermutation, {pattern(DType::I8, {6, 2}, 3)}, {{"dimension", int64_t{0}}});
}

}  // namespace
}  // namespace meshtest::testing_util
