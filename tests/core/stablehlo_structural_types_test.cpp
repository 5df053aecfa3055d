// Type rules of the StableHLO structural ops (96..110): result types of valid
// ops, and a precise CompileError for each kind of constraint the spec sets
// (dimension numbers out of range, repeated or unsorted; sizes that do not
// match; wrong operand dtypes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/type_rule_errors.h"
#include "core/error.h"
#include "core/ops.h"

namespace meshtest {
namespace {

using testing::HasSubstr;
using Ints = std::vector<int64_t>;

using testing_util::compile_error;

TensorType f32(Shape shape) { return {DType::F32, std::move(shape)}; }
TensorType i64(Shape shape) { return {DType::I64, std::move(shape)}; }

TEST(StablehloTypes, BroadcastInDim) {
  const Attrs ok{{"shape", Ints{2, 3, 2}}, {"broadcast_dimensions", Ints{2, 1}}};
  EXPECT_EQ(infer_type(OpKind::BroadcastInDim, {f32({1, 3})}, ok), f32({2, 3, 2}));
  EXPECT_THAT(compile_error(OpKind::BroadcastInDim, {f32({3, 3})}, ok), HasSubstr("is neither 1 nor 2"));
  EXPECT_THAT(compile_error(OpKind::BroadcastInDim, {f32({1, 3})},
                            {{"shape", Ints{3, 3}}, {"broadcast_dimensions", Ints{1, 1}}}),
              HasSubstr("lists dimension 1 twice"));
  EXPECT_THAT(
      compile_error(OpKind::BroadcastInDim, {f32({3})}, {{"shape", Ints{3}}, {"broadcast_dimensions", Ints{1}}}),
      HasSubstr("broadcast_dimensions[0] = 1 is outside [0, 1)"));
}

TEST(StablehloTypes, PadAndSlices) {
  const Attrs pad{{"low", Ints{0, -1}}, {"high", Ints{2, 1}}, {"interior", Ints{1, 2}}};
  EXPECT_EQ(infer_type(OpKind::Pad, {f32({2, 3}), f32({})}, pad), f32({5, 7}));
  EXPECT_THAT(compile_error(OpKind::Pad, {f32({2, 3}), i64({})}, pad), HasSubstr("padding value must have dtype f32"));
  EXPECT_THAT(compile_error(OpKind::Pad, {f32({2, 3}), f32({})}, {{"low", Ints{0, -9}}, {"high", Ints{0, 0}}}),
              HasSubstr("negative size"));
  EXPECT_THAT(compile_error(OpKind::Pad, {f32({2, 3}), f32({})},
                            {{"low", Ints{0, 0}}, {"high", Ints{0, 0}}, {"interior", Ints{0, -1}}}),
              HasSubstr("interior[1] = -1 must be >= 0"));
  const Attrs sizes{{"slice_sizes", Ints{2, 2}}};
  EXPECT_EQ(infer_type(OpKind::DynamicSlice, {f32({4, 4}), i64({}), i64({})}, sizes), f32({2, 2}));
  EXPECT_THAT(compile_error(OpKind::DynamicSlice, {f32({4, 4}), i64({})}, sizes),
              HasSubstr("expected 2 start indices"));
  EXPECT_THAT(compile_error(OpKind::DynamicSlice, {f32({4, 4}), i64({}), TensorType{DType::I32, {}}}, sizes),
              HasSubstr("start index 1 must have dtype i64"));
  EXPECT_THAT(compile_error(OpKind::DynamicSlice, {f32({4, 4}), f32({}), f32({})}, sizes), HasSubstr("integer dtype"));
  EXPECT_THAT(compile_error(OpKind::DynamicSlice, {f32({4, 4}), i64({}), i64({})}, {{"slice_sizes", Ints{5, 1}}}),
              HasSubstr("slice_sizes[0] = 5 is outside [0, 4]"));
  EXPECT_EQ(infer_type(OpKind::DynamicUpdateSlice, {f32({4, 4}), f32({2, 4}), i64({}), i64({})}, {}), f32({4, 4}));
  EXPECT_THAT(compile_error(OpKind::DynamicUpdateSlice, {f32({4, 4}), f32({2, 5}), i64({}), i64({})}, {}),
              HasSubstr("larger than the operand"));
  EXPECT_THAT(compile_error(OpKind::Reverse, {f32({4, 4})}, {{"dimensions", Ints{0, 0}}}), HasSubstr("twice"));
  EXPECT_EQ(infer_type(OpKind::TakeAlongAxis, {f32({4, 5}), i64({4, 2})}, {{"axis", int64_t{1}}}), f32({4, 2}));
  EXPECT_THAT(compile_error(OpKind::TakeAlongAxis, {f32({4, 5}), i64({3, 2})}, {{"axis", int64_t{1}}}),
              HasSubstr("differ from f32[4,5] in dimension 0"));
}

Attrs spec_gather() {
  return {{"offset_dims", Ints{3, 4}},        {"collapsed_slice_dims", Ints{1}},
          {"operand_batching_dims", Ints{0}}, {"start_indices_batching_dims", Ints{1}},
          {"start_index_map", Ints{2, 1}},    {"index_vector_dim", int64_t{3}},
          {"slice_sizes", Ints{1, 1, 2, 2}}};
}

TEST(StablehloTypes, Gather) {
  const TensorType operand{DType::I32, {2, 3, 4, 2}};
  EXPECT_EQ(infer_type(OpKind::Gather, {operand, i64({2, 2, 3, 2})}, spec_gather()),
            (TensorType{DType::I32, {2, 2, 3, 2, 2}}));
  auto with = [](const char* name, AttrValue value) {
    Attrs a = spec_gather();
    a.set(name, std::move(value));
    return a;
  };
  const TensorType indices = i64({2, 2, 3, 2});
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("slice_sizes", Ints{1, 2, 2, 2})),
              HasSubstr("slice_sizes[1] must be 0 or 1"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("start_index_map", Ints{2})),
              HasSubstr("start_index_map (the index vector's length) must have 2 entries"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("start_index_map", Ints{0, 1})),
              HasSubstr("start_index_map + operand_batching_dims lists dimension 0 twice"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("start_indices_batching_dims", Ints{3})),
              HasSubstr("must not contain index_vector_dim 3"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("start_indices_batching_dims", Ints{2})),
              HasSubstr("batching dimension 0 has size 2 in the operand but 3 in the indices"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("offset_dims", Ints{4, 3})),
              HasSubstr("offset_dims must be sorted"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("offset_dims", Ints{3})),
              HasSubstr("2 window dimensions"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, indices}, with("index_vector_dim", int64_t{5})),
              HasSubstr("index_vector_dim = 5 is outside [0, 4]"));
  EXPECT_THAT(compile_error(OpKind::Gather, {operand, f32({2, 2, 3, 2})}, spec_gather()), HasSubstr("integer dtype"));
}

Attrs spec_scatter() {
  return {{"update_window_dims", Ints{3, 4}},
          {"inserted_window_dims", Ints{1}},
          {"input_batching_dims", Ints{0}},
          {"scatter_indices_batching_dims", Ints{1}},
          {"scatter_dims_to_operand_dims", Ints{2, 1}},
          {"index_vector_dim", int64_t{3}},
          {"combiner", std::string("add")}};
}

TEST(StablehloTypes, Scatter) {
  const TensorType operand = i64({2, 3, 4, 2});
  const TensorType indices = i64({2, 2, 3, 2});
  EXPECT_EQ(infer_type(OpKind::Scatter, {operand, indices, i64({2, 2, 3, 2, 2})}, spec_scatter()), operand);
  EXPECT_THAT(compile_error(OpKind::Scatter, {operand, indices, i64({2, 2, 3, 5, 2})}, spec_scatter()),
              HasSubstr("updates dimension 3 (5) exceeds operand dimension 2 (4)"));
  EXPECT_THAT(compile_error(OpKind::Scatter, {operand, indices, i64({2, 3, 3, 2, 2})}, spec_scatter()),
              HasSubstr("updates dimension 1 (3) must equal the matching scatter_indices dimension (2)"));
  EXPECT_THAT(compile_error(OpKind::Scatter, {operand, indices, i64({2, 2, 3, 2, 2, 1})}, spec_scatter()),
              HasSubstr("must have rank 5"));
  EXPECT_THAT(compile_error(OpKind::Scatter, {operand, indices, f32({2, 2, 3, 2, 2})}, spec_scatter()),
              HasSubstr("operand's dtype"));
  Attrs bad = spec_scatter();
  bad.set("inserted_window_dims", Ints{0});
  EXPECT_THAT(compile_error(OpKind::Scatter, {operand, indices, i64({2, 2, 3, 2, 2})}, bad),
              HasSubstr("inserted_window_dims + input_batching_dims lists dimension 0 twice"));
  Attrs bitwise = spec_scatter();
  bitwise.set("combiner", std::string("xor"));
  EXPECT_THAT(compile_error(OpKind::Scatter, {f32({2, 3, 4, 2}), indices, f32({2, 2, 3, 2, 2})}, bitwise),
              HasSubstr("combiner \"xor\" needs integer or bool elements"));
}

TEST(StablehloTypes, DotGeneralAndConvolution) {
  const Attrs dot{{"lhs_batching_dims", Ints{1}},
                  {"rhs_batching_dims", Ints{1}},
                  {"lhs_contracting_dims", Ints{0}},
                  {"rhs_contracting_dims", Ints{2}},
                  {"dtype", std::string("f32")}};
  EXPECT_EQ(infer_type(OpKind::DotGeneral, {f32({2, 5, 3}), f32({4, 5, 2})}, dot), f32({5, 3, 4}));
  EXPECT_THAT(compile_error(OpKind::DotGeneral, {f32({2, 5, 3}), f32({4, 6, 2})}, dot),
              HasSubstr("batching dimension 0 differs: lhs dim 1 is 5, rhs dim 1 is 6"));
  EXPECT_THAT(compile_error(OpKind::DotGeneral, {f32({2, 5, 3}), i64({4, 5, 2})}, dot), HasSubstr("dtypes differ"));
  const Attrs conv{{"window_strides", Ints{4, 4}},
                   {"lhs_dilation", Ints{2, 2}},
                   {"input_batch_dimension", int64_t{0}},
                   {"input_feature_dimension", int64_t{3}},
                   {"input_spatial_dimensions", Ints{1, 2}},
                   {"kernel_input_feature_dimension", int64_t{2}},
                   {"kernel_output_feature_dimension", int64_t{3}},
                   {"kernel_spatial_dimensions", Ints{0, 1}},
                   {"output_batch_dimension", int64_t{0}},
                   {"output_feature_dimension", int64_t{3}},
                   {"output_spatial_dimensions", Ints{1, 2}},
                   {"dtype", std::string("i64")}};
  EXPECT_EQ(infer_type(OpKind::Convolution, {i64({1, 4, 4, 1}), i64({3, 3, 1, 1})}, conv), i64({1, 2, 2, 1}));
  EXPECT_THAT(compile_error(OpKind::Convolution, {i64({1, 4, 4, 2}), i64({3, 3, 1, 1})}, conv),
              HasSubstr("kernel input features 1 must be input features 2 / feature_group_count 1"));
  Attrs groups = conv;
  groups.set("feature_group_count", int64_t{2});
  groups.set("batch_group_count", int64_t{2});
  EXPECT_THAT(compile_error(OpKind::Convolution, {i64({2, 4, 4, 2}), i64({3, 3, 1, 2})}, groups),
              HasSubstr("cannot both exceed 1"));
  Attrs repeated = conv;
  repeated.set("output_spatial_dimensions", Ints{1, 0});
  EXPECT_THAT(compile_error(OpKind::Convolution, {i64({1, 4, 4, 1}), i64({3, 3, 1, 1})}, repeated),
              HasSubstr("output dimensions (batch, spatial, feature) lists dimension 0 twice"));
}

TEST(StablehloTypes, ReductionsWindowsAndSorts) {
  const Attrs reduce{{"dimensions", Ints{1}}, {"combiner", std::string("max")}};
  EXPECT_EQ(infer_type(OpKind::Reduce, {f32({2, 3, 4}), f32({})}, reduce), f32({2, 4}));
  EXPECT_THAT(compile_error(OpKind::Reduce, {f32({2, 3}), f32({1})}, reduce), HasSubstr("init value must be a scalar"));
  EXPECT_EQ(
      infer_type(OpKind::ReduceArg, {f32({2, 3})}, {{"dimension", int64_t{1}}, {"direction", std::string("max")}}),
      i64({2}));
  EXPECT_THAT(
      compile_error(OpKind::ReduceArg, {f32({2, 300})},
                    {{"dimension", int64_t{1}}, {"direction", std::string("max")}, {"dtype", std::string("i8")}}),
      HasSubstr("cannot hold index 299"));
  const Attrs window{{"window_dimensions", Ints{2, 1}}, {"window_strides", Ints{4, 1}},
                     {"base_dilations", Ints{2, 1}},    {"window_dilations", Ints{3, 1}},
                     {"padding", Ints{2, 1, 0, 0}},     {"combiner", std::string("add")}};
  EXPECT_EQ(infer_type(OpKind::ReduceWindow, {i64({3, 2}), i64({})}, window), i64({2, 2}));
  Attrs zero_stride = window;
  zero_stride.set("window_strides", Ints{0, 1});
  EXPECT_THAT(compile_error(OpKind::ReduceWindow, {i64({3, 2}), i64({})}, zero_stride),
              HasSubstr("window_strides[0] = 0 must be >= 1"));
  const Attrs select{{"window_dimensions", Ints{3, 1}},
                     {"window_strides", Ints{2, 1}},
                     {"padding", Ints{0, 1, 0, 0}},
                     {"select", std::string("ge")}};
  EXPECT_EQ(infer_type(OpKind::SelectAndScatter, {i64({4, 2}), i64({2, 2}), i64({})}, select), i64({4, 2}));
  EXPECT_THAT(compile_error(OpKind::SelectAndScatter, {i64({4, 2}), i64({3, 2}), i64({})}, select),
              HasSubstr("must have the window counts [2,2]"));
  EXPECT_EQ(infer_type(OpKind::SortPermutation, {f32({3, 4}), TensorType{DType::I8, {3, 4}}},
                       {{"dimension", int64_t{-1}}, {"directions", Ints{0, 1}}}),
            i64({3, 4}));
  EXPECT_THAT(compile_error(OpKind::SortPermutation, {f32({3, 4}), f32({3, 5})}, {{"dimension", int64_t{0}}}),
              HasSubstr("differs in shape"));
  EXPECT_THAT(compile_error(OpKind::SortPermutation, {f32({3, 4})}, {{"dimension", int64_t{2}}}),
              HasSubstr("dimension 2 is outside [-2, 2)"));
  EXPECT_THAT(
      compile_error(OpKind::SortPermutation, {f32({3, 4})}, {{"dimension", int64_t{0}}, {"directions", Ints{0, 1}}}),
      HasSubstr("directions must have 1 entries"));
}

}  // namespace
}  // namespace meshtest
