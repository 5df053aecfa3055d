// The backward ops autodiff added to the IR (core/ops.h "Backward ops"):
// type rules, the CPU reference kernels (hand-computed cases, and the adjoint
// identities <conv(x, w), dy> = <x, conv2d_backward_input(dy, w)> =
// <w, conv2d_backward_weight(x, dy)> over several geometries), and the
// simulated chip's kernels against the reference on random data.
#include <gtest/gtest.h>

#include "compiler/compile.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "runtime/device/simulated_chip.h"
#include "tests/autodiff/autodiff_test_util.h"

namespace meshtest::testing {
namespace {

using Ints = std::vector<int64_t>;

// One op on graph inputs named in0, in1, ...
Graph one_op(OpKind kind, const std::vector<TensorType>& in, Attrs attrs) {
  GraphBuilder b(std::string(op_name(kind)));
  std::vector<ValueId> v;
  for (size_t i = 0; i < in.size(); ++i) v.push_back(b.input("in" + std::to_string(i), in[i].dtype, in[i].shape));
  b.output("y", b.op(kind, v, std::move(attrs)));
  return b.finish();
}

runtime::NamedTensors named(const std::vector<Tensor>& in) {
  runtime::NamedTensors m;
  for (size_t i = 0; i < in.size(); ++i) m["in" + std::to_string(i)] = in[i];
  return m;
}

std::vector<TensorType> types_of(const std::vector<Tensor>& in) {
  std::vector<TensorType> t;
  for (const Tensor& x : in) t.push_back({x.dtype(), x.shape()});
  return t;
}

Tensor reference(OpKind kind, const std::vector<Tensor>& in, const Attrs& attrs) {
  return runtime::run_reference(one_op(kind, types_of(in), attrs), named(in)).at(0);
}

Tensor device(OpKind kind, const std::vector<Tensor>& in, const Attrs& attrs) {
  const DeviceProgram program = compiler::compile(one_op(kind, types_of(in), attrs), {});
  runtime::SimulatedChip chip({});
  return chip.execute(program, named(in)).at(0).to(DType::F32);
}

TEST(BackwardOpTypes, InferAndCheck) {
  const Attrs conv{
      {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}, {"input_shape", Ints{1, 4, 8, 8}}, {"groups", int64_t{2}}};
  EXPECT_EQ(infer_type(OpKind::Conv2dBackwardInput, {{DType::F32, {1, 6, 4, 4}}, {DType::F32, {6, 2, 3, 3}}}, conv),
            (TensorType{DType::F32, {1, 4, 8, 8}}));
  EXPECT_THROW(infer_type(OpKind::Conv2dBackwardInput, {{DType::F32, {1, 6, 5, 4}}, {DType::F32, {6, 2, 3, 3}}}, conv),
               CompileError);
  const Attrs convw{
      {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}, {"weight_shape", Ints{6, 2, 3, 3}}, {"groups", int64_t{2}}};
  EXPECT_EQ(infer_type(OpKind::Conv2dBackwardWeight, {{DType::BF16, {1, 4, 8, 8}}, {DType::BF16, {1, 6, 4, 4}}}, convw),
            (TensorType{DType::BF16, {6, 2, 3, 3}}));
  const Attrs pool{{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}};
  EXPECT_EQ(infer_type(OpKind::MaxPool2dBackward, {{DType::F32, {1, 1, 4, 4}}, {DType::F32, {1, 1, 2, 2}}}, pool),
            (TensorType{DType::F32, {1, 1, 4, 4}}));
  EXPECT_THROW(infer_type(OpKind::MaxPool2dBackward, {{DType::F32, {1, 1, 4, 4}}, {DType::F32, {1, 1, 3, 2}}}, pool),
               CompileError);
  Attrs avg = pool;
  avg.set("input_shape", Ints{1, 1, 4, 4});
  EXPECT_EQ(infer_type(OpKind::AvgPool2dBackward, {{DType::F32, {1, 1, 2, 2}}}, avg),
            (TensorType{DType::F32, {1, 1, 4, 4}}));
  EXPECT_EQ(infer_type(OpKind::EmbeddingBackward, {{DType::I64, {2, 3}}, {DType::F32, {2, 3, 8}}},
                       {{"num_embeddings", int64_t{10}}}),
            (TensorType{DType::F32, {10, 8}}));
  EXPECT_THROW(infer_type(OpKind::EmbeddingBackward, {{DType::F32, {2, 3}}, {DType::F32, {2, 3, 8}}},
                          {{"num_embeddings", int64_t{10}}}),
               CompileError);
  const Attrs slice{{"axis", int64_t{1}},
                    {"start", int64_t{1}},
                    {"end", int64_t{7}},
                    {"step", int64_t{2}},
                    {"input_shape", Ints{2, 7}}};
  EXPECT_EQ(infer_type(OpKind::SliceBackward, {{DType::F32, {2, 3}}}, slice), (TensorType{DType::F32, {2, 7}}));
  EXPECT_THROW(infer_type(OpKind::SliceBackward, {{DType::F32, {2, 4}}}, slice), CompileError);
  EXPECT_EQ(infer_type(OpKind::Greater, {{DType::F32, {2, 1}}, {DType::F32, {3}}}, {}),
            (TensorType{DType::F32, {2, 3}}));
  EXPECT_THROW(infer_type(OpKind::Greater, {{DType::I32, {2}}, {DType::I32, {2}}}, {}), CompileError);
}

TEST(BackwardOpsReference, HandComputed) {
  EXPECT_EQ(reference(OpKind::Greater, {Tensor::from_f32({2, 1}, {1, 3}), Tensor::from_f32({3}, {0, 1, 2})}, {})
                .to_f32_vector(),
            (std::vector<float>{1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(reference(OpKind::SliceBackward, {Tensor::from_f32({3}, {1, 2, 3})},
                      {{"axis", int64_t{0}},
                       {"start", int64_t{-5}},
                       {"end", int64_t{5}},
                       {"step", int64_t{2}},
                       {"input_shape", Ints{5}}})
                .to_f32_vector(),
            (std::vector<float>{1, 0, 2, 0, 3}));
  EXPECT_EQ(reference(OpKind::EmbeddingBackward,
                      {Tensor::from_i64({3}, {1, 1, 0}), Tensor::from_f32({3, 2}, {1, 2, 3, 4, 5, 6})},
                      {{"num_embeddings", int64_t{3}}})
                .to_f32_vector(),
            (std::vector<float>{5, 6, 4, 6, 0, 0}));
  // 2x2 windows of a 1x1x2x4 plane; the second window has a tie (first wins).
  EXPECT_EQ(
      reference(OpKind::MaxPool2dBackward,
                {Tensor::from_f32({1, 1, 2, 4}, {1, 5, 7, 7, 2, 3, 7, 0}), Tensor::from_f32({1, 1, 1, 2}, {10, 20})},
                {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}})
          .to_f32_vector(),
      (std::vector<float>{0, 10, 20, 0, 0, 0, 0, 0}));
  // 3x3 windows with padding 1 over a 2x2 plane: 4 real elements per window.
  const Attrs avg{{"kernel", Ints{3, 3}}, {"padding", Ints{1, 1}}, {"input_shape", Ints{1, 1, 2, 2}}};
  Attrs include = avg, exclude = avg;
  include.set("count_include_pad", int64_t{1});
  exclude.set("count_include_pad", int64_t{0});
  const Tensor dy = Tensor::from_f32({1, 1, 2, 2}, {9, 18, 27, 36});
  EXPECT_EQ(reference(OpKind::AvgPool2dBackward, {dy}, include).to_f32_vector(), (std::vector<float>{10, 10, 10, 10}));
  EXPECT_EQ(reference(OpKind::AvgPool2dBackward, {dy}, exclude).to_f32_vector(),
            (std::vector<float>{22.5f, 22.5f, 22.5f, 22.5f}));
  EXPECT_THROW(reference(OpKind::EmbeddingBackward, {Tensor::from_i64({1}, {3}), Tensor::from_f32({1, 2}, {1, 2})},
                         {{"num_embeddings", int64_t{3}}}),
               RuntimeError);
}

struct ConvCase {
  Shape x, w;
  Attrs attrs;
};

const std::vector<ConvCase> kConvCases = {
    {{1, 2, 5, 5}, {3, 2, 3, 3}, {}},
    {{2, 4, 7, 6},
     {6, 2, 3, 2},
     {{"stride", Ints{2, 1}}, {"padding", Ints{1, 2}}, {"dilation", Ints{2, 1}}, {"groups", int64_t{2}}}},
    {{1, 4, 8, 8},
     {4, 1, 3, 3},
     {{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}, {"groups", int64_t{4}}}},  // depthwise
    {{2, 3, 6, 6}, {5, 3, 1, 1}, {{"stride", Ints{3, 3}}}},                       // strided 1x1: skips input rows
};

TEST(BackwardOpsReference, ConvolutionBackwardOpsAreAdjoints) {
  for (const ConvCase& c : kConvCases) {
    const Tensor x = random_normal(c.x, 1), w = random_normal(c.w, 2);
    const Tensor y = reference(OpKind::Conv2d, {x, w}, c.attrs);
    const Tensor dy = random_normal(y.shape(), 3);
    Attrs in = c.attrs, wt = c.attrs;
    in.set("input_shape", c.x);
    wt.set("weight_shape", c.w);
    const double lhs = dot(y, dy);
    EXPECT_NEAR(dot(x, reference(OpKind::Conv2dBackwardInput, {dy, w}, in)), lhs, 1e-4 * std::abs(lhs) + 1e-3);
    EXPECT_NEAR(dot(w, reference(OpKind::Conv2dBackwardWeight, {x, dy}, wt)), lhs, 1e-4 * std::abs(lhs) + 1e-3);
  }
}

void expect_device_matches_reference(OpKind kind, const std::vector<Tensor>& in, const Attrs& attrs) {
  const Tensor want = reference(kind, in, attrs);
  const Tensor got = device(kind, in, attrs);
  ASSERT_EQ(got.shape(), want.shape()) << op_name(kind);
  EXPECT_GT(pcc(got, want), 0.999) << op_name(kind);
  const std::vector<float> g = got.to_f32_vector(), r = want.to_f32_vector();
  double max_ref = 0;
  for (float v : r) max_ref = std::max(max_ref, static_cast<double>(std::abs(v)));
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], r[i], 0.02 * max_ref + 1e-6) << op_name(kind) << " element " << i;
  }
}

// bf16-exact inputs, so the device sees exactly the reference's operands.
Tensor bf16_normal(const Shape& shape, uint64_t seed) {
  return random_normal(shape, seed).to(DType::BF16).to(DType::F32);
}

TEST(BackwardOpsDevice, ConvolutionMatchesReference) {
  for (const ConvCase& c : kConvCases) {
    const Tensor x = bf16_normal(c.x, 1), w = bf16_normal(c.w, 2);
    const Shape y = infer_type(OpKind::Conv2d, {{DType::F32, c.x}, {DType::F32, c.w}}, c.attrs).shape;
    const Tensor dy = bf16_normal(y, 3);
    Attrs in = c.attrs, wt = c.attrs;
    in.set("input_shape", c.x);
    wt.set("weight_shape", c.w);
    expect_device_matches_reference(OpKind::Conv2dBackwardInput, {dy, w}, in);
    expect_device_matches_reference(OpKind::Conv2dBackwardWeight, {x, dy}, wt);
  }
}

TEST(BackwardOpsDevice, PoolingMatchesReference) {
  const Tensor x = bf16_normal({2, 3, 7, 6}, 4);
  const Attrs pool{{"kernel", Ints{3, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}};
  const Shape y = infer_type(OpKind::MaxPool2d, {{DType::F32, x.shape()}}, pool).shape;
  const Tensor dy = bf16_normal(y, 5);
  expect_device_matches_reference(OpKind::MaxPool2dBackward, {x, dy}, pool);
  for (int64_t include : {0, 1}) {
    Attrs avg = pool;
    avg.set("count_include_pad", include);
    avg.set("input_shape", x.shape());
    expect_device_matches_reference(OpKind::AvgPool2dBackward, {dy}, avg);
  }
}

// Ties (common in bf16 and after relu) go to the first maximum on both sides.
TEST(BackwardOpsDevice, MaxPoolTiesGoToTheFirstMaximum) {
  const Tensor x = Tensor::from_f32({1, 1, 2, 6}, {1, 5, 7, 7, 0, 0, 2, 3, 7, 0, 0, 0});
  const Tensor dy = Tensor::from_f32({1, 1, 1, 3}, {10, 20, 30});
  const Attrs pool{{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}};
  const std::vector<float> want{0, 10, 20, 0, 30, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(reference(OpKind::MaxPool2dBackward, {x, dy}, pool).to_f32_vector(), want);
  EXPECT_EQ(device(OpKind::MaxPool2dBackward, {x, dy}, pool).to_f32_vector(), want);
}

TEST(BackwardOpsDevice, ScatterSliceAndGreaterMatchReference) {
  expect_device_matches_reference(OpKind::EmbeddingBackward, {random_int({4, 5}, 6, 0, 7), bf16_normal({4, 5, 8}, 7)},
                                  {{"num_embeddings", int64_t{7}}});
  expect_device_matches_reference(OpKind::SliceBackward, {bf16_normal({2, 3, 4}, 8)},
                                  {{"axis", int64_t{1}},
                                   {"start", int64_t{1}},
                                   {"end", int64_t{9}},
                                   {"step", int64_t{3}},
                                   {"input_shape", Ints{2, 9, 4}}});
  expect_device_matches_reference(OpKind::Greater, {bf16_normal({3, 1, 4}, 9), bf16_normal({5, 1}, 10)}, {});
}

}  // namespace
}  // namespace meshtest::testing
