// Reference executor: pooling, batch_norm, layer_norm and softmax against
// hand-computed values.
#include <cmath>

#include "reference_test_util.h"

namespace meshtest::runtime::testing {
namespace {

Attrs pool_attrs(int64_t kernel, int64_t stride, int64_t padding) {
  return {{"kernel", std::vector<int64_t>{kernel, kernel}},
          {"stride", std::vector<int64_t>{stride, stride}},
          {"padding", std::vector<int64_t>{padding, padding}}};
}

TEST(ReferencePool, MaxPool2x2Stride2) {
  expect_f32(run_op(OpKind::MaxPool2d, {iota({1, 1, 4, 4}, 1)}, pool_attrs(2, 2, 0)), {1, 1, 2, 2}, {6, 8, 14, 16});
}

TEST(ReferencePool, MaxPoolPadsWithMinusInfinity) {
  // All inputs negative (-1..-9): zero padding would win everywhere; -inf padding
  // leaves the max of the real elements of each window.
  std::vector<float> v;
  for (int i = 1; i <= 9; ++i) v.push_back(-static_cast<float>(i));
  expect_f32(run_op(OpKind::MaxPool2d, {Tensor::from_f32({1, 1, 3, 3}, v)}, pool_attrs(3, 2, 1)), {1, 1, 2, 2},
             {-1, -2, -4, -5});
}

TEST(ReferencePool, AvgPoolCountIncludePadBothWays) {
  // 1..9, kernel 3, stride 2, padding 1: window sums 12, 16, 24, 28 over 4 real elements.
  const Tensor x = iota({1, 1, 3, 3}, 1);
  Attrs include = pool_attrs(3, 2, 1);
  include.set("count_include_pad", int64_t{1});
  expect_f32(run_op(OpKind::AvgPool2d, {x}, include), {1, 1, 2, 2}, {12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9});
  // The default is PyTorch's: padding counts.
  expect_f32(run_op(OpKind::AvgPool2d, {x}, pool_attrs(3, 2, 1)), {1, 1, 2, 2},
             {12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9});
  Attrs exclude = pool_attrs(3, 2, 1);
  exclude.set("count_include_pad", int64_t{0});
  expect_f32(run_op(OpKind::AvgPool2d, {x}, exclude), {1, 1, 2, 2}, {3, 4, 6, 7});
  // No padding, kernel 2 stride 1.
  expect_f32(run_op(OpKind::AvgPool2d, {x}, pool_attrs(2, 1, 0)), {1, 1, 2, 2}, {3, 4, 6, 7});
}

TEST(ReferencePool, GlobalAvgPool) {
  const Tensor x = Tensor::from_f32({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  expect_f32(run_op(OpKind::GlobalAvgPool2d, {x}), {1, 2, 1, 1}, {2.5f, 25});
}

TEST(ReferenceNorm, BatchNorm) {
  // channel 0: (x - 1) / sqrt(4) * 2 + 0.5; channel 1: (x - 2) / sqrt(0.25) * 1 - 1.
  const Tensor x = Tensor::from_f32({1, 2, 1, 2}, {1, 2, 3, 4});
  const Tensor scale = Tensor::from_f32({2}, {2, 1});
  const Tensor bias = Tensor::from_f32({2}, {0.5f, -1});
  const Tensor mean = Tensor::from_f32({2}, {1, 2});
  const Tensor var = Tensor::from_f32({2}, {4, 0.25f});
  expect_f32(run_op(OpKind::BatchNorm, {x, scale, bias, mean, var}, {{"eps", 0.0}}), {1, 2, 1, 2}, {0.5f, 1.5f, 1, 3});
  // eps = 1 with var 3: divide by sqrt(4) = 2, batch of two.
  const Tensor x2 = Tensor::from_f32({2, 1, 1, 1}, {5, -3});
  const Tensor one = Tensor::from_f32({1}, {1});
  const Tensor zero = Tensor::from_f32({1}, {0});
  expect_f32(run_op(OpKind::BatchNorm, {x2, one, zero, Tensor::from_f32({1}, {1}), Tensor::from_f32({1}, {3})},
                    {{"eps", 1.0}}),
             {2, 1, 1, 1}, {2, -2});
}

TEST(ReferenceNorm, LayerNormBiasedVariance) {
  // [1,2,3,4]: mean 2.5, biased var 1.25 -> (x - 2.5) / sqrt(1.25), then gamma, beta.
  const Tensor x = Tensor::from_f32({1, 4}, {1, 2, 3, 4});
  const Tensor gamma = Tensor::from_f32({4}, {1, 1, 2, 2});
  const Tensor beta = Tensor::from_f32({4}, {0, 0, 0, 1});
  const float s = 1.0f / std::sqrt(1.25f);
  expect_f32(run_op(OpKind::LayerNorm, {x, gamma, beta}, {{"eps", 0.0}}), {1, 4},
             {-1.5f * s, -0.5f * s, 2 * 0.5f * s, 2 * 1.5f * s + 1});
  // A constant row normalizes to 0 (default eps keeps it finite): output = beta.
  const Tensor c = Tensor::from_f32({2, 1, 4}, {2, 2, 2, 2, -7, -7, -7, -7});
  expect_f32(run_op(OpKind::LayerNorm, {c, gamma, beta}), {2, 1, 4}, {0, 0, 0, 1, 0, 0, 0, 1});
}

TEST(ReferenceSoftmax, LastAxisIsStable) {
  // exp(ln k) = k: [1, 2, 3, 6] / 12. Row of 1000s would overflow a naive exp.
  const float l2 = std::log(2.0f), l3 = std::log(3.0f), l6 = std::log(6.0f);
  const Tensor x = Tensor::from_f32({2, 4}, {0, l2, l3, l6, 1000, 1000, 1000, 1000});
  expect_f32(run_op(OpKind::Softmax, {x}, {{"axis", int64_t{-1}}}), {2, 4},
             {1.0f / 12, 2.0f / 12, 3.0f / 12, 6.0f / 12, 0.25f, 0.25f, 0.25f, 0.25f});
}

TEST(ReferenceSoftmax, OtherAxes) {
  const float l3 = std::log(3.0f);
  // axis 0 of [[0, 0], [ln3, -ln3]]: columns [1, 3]/4 and [3, 1]/4.
  expect_f32(run_op(OpKind::Softmax, {Tensor::from_f32({2, 2}, {0, 0, l3, -l3})}, {{"axis", int64_t{0}}}), {2, 2},
             {0.25f, 0.75f, 0.75f, 0.25f});
  // axis 1 of [1,3,2]: column 0 = ln(1), ln(2), ln(3) -> [1,2,3]/6; column 1 = 0 -> 1/3 each.
  const Tensor x = Tensor::from_f32({1, 3, 2}, {0, 0, std::log(2.0f), 0, l3, 0});
  expect_f32(run_op(OpKind::Softmax, {x}, {{"axis", int64_t{1}}}), {1, 3, 2},
             {1.0f / 6, 1.0f / 3, 2.0f / 6, 1.0f / 3, 3.0f / 6, 1.0f / 3});
}

}  // namespace
}  // namespace meshtest::runtime::testing
