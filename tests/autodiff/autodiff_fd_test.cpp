// One test per differentiable op: the op's vector-Jacobian rule (through
// build_training_graph, run on the CPU reference) against central finite
// differences of the forward graph.
//
// How, and why not a plain f64 Jacobian: the reference executor computes in
// f32 (only its sums are f64), so the check is done the way f32 allows while
// keeping every projection and accumulation in f64. For a seed gradient w
// (random normal) and random normal directions u (per weight, 4 each):
//   analytic = <J^T w, u>  (the weight's gradient output dotted with u, in f64)
//   numeric  = (<w, f(theta + h u)> - <w, f(theta - h u)>) / 2h   (f64 sums of
//              f32 forward results)
// and |numeric - analytic| <= rtol * ||J^T w||. Since <g, u> ~ N(0, ||g||^2)
// for u ~ N(0, I), a rule off by a factor (1.5x, a sign) or wrong on any
// sizeable subset of elements misses this by tens of percent, while the
// f32 rounding (~1e-7 * |<w, f>| / h) and the O(h^2) truncation stay far
// below it (observed worst: 3.3e-4, rms_norm). Tolerances: smooth ops h = 1e-2,
// rtol = 3e-3; ops with kinks
// (relu, maximum, max_pool2d, reduce_max, topk_mask) use inputs on a grid of
// distinct values 0.05 apart (no kink or tie within reach) and h = 1e-3;
// division, log, sqrt and rsqrt get inputs bounded away from zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "tests/autodiff/autodiff_test_util.h"

namespace meshtest::testing {
namespace {

struct FdOptions {
  double step = 1e-2;
  double rtol = 3e-3;
  int directions = 4;
};

Tensor add_scaled(const Tensor& a, const Tensor& b, double s) {
  std::vector<float> x = a.to_f32_vector();
  const std::vector<float> y = b.to_f32_vector();
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(x[i] + s * y[i]);
  return Tensor::from_f32(a.shape(), x);
}

// Worst |numeric - analytic| / ||gradient|| over every weight with a gradient
// and every direction; also checks each gradient's type.
double worst_fd_error(const Graph& forward, const runtime::NamedTensors& inputs, const FdOptions& o = {},
                      bool report = true) {
  const compiler::TrainingGraph training = compiler::build_training_graph(forward, "");
  EXPECT_FALSE(training.with_gradient.empty());
  const Tensor seed = random_normal(forward.type(forward.outputs[0].value).shape, 7);
  const auto out = run_training_reference(training, inputs, seed);
  const Graph plain = expand_composites(forward);
  double worst = 0.0;
  for (const std::string& name : training.with_gradient) {
    const Param* p = forward.find_param(name);
    const Tensor theta = p->data.to(DType::F32);
    const Tensor& g = out.at(compiler::kGradientPrefix + name);
    EXPECT_EQ(g.shape(), theta.shape()) << name;
    const double scale = std::max(norm(g), 1e-6);
    for (int d = 0; d < o.directions; ++d) {
      const Tensor u = random_normal(theta.shape(), hash_seed(name, 100 + static_cast<uint64_t>(d)));
      const double analytic = dot(g, u);
      auto loss = [&](double s) {
        return dot(seed, runtime::run_reference(with_weight(plain, name, add_scaled(theta, u, s)), inputs).at(0));
      };
      const double numeric = (loss(o.step) - loss(-o.step)) / (2.0 * o.step);
      const double err = std::abs(numeric - analytic) / scale;
      if (report && err > o.rtol)
        ADD_FAILURE() << name << " direction " << d << ": numeric " << numeric << " vs analytic " << analytic;
      worst = std::max(worst, err);
    }
  }
  return worst;
}

void expect_fd(const Graph& forward, const runtime::NamedTensors& inputs = {}, const FdOptions& o = {}) {
  const double worst = worst_fd_error(forward, inputs, o);
  EXPECT_LT(worst, o.rtol);
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
}

const FdOptions kKinked{1e-3, 3e-3, 4};

// Random values in [lo, hi).
ValueId uniform_weight(GraphBuilder& b, const std::string& name, const Shape& shape, float lo = -1.0f,
                       float hi = 1.0f) {
  return b.weight(name, random_uniform(shape, hash_seed(name), lo, hi));
}

// Distinct values 0.05 apart (none zero), in random order: no kink or tie
// within a finite-difference step.
ValueId grid_weight(GraphBuilder& b, const std::string& name, const Shape& shape, double offset = 0.0) {
  const int64_t n = shape_numel(shape);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(hash_seed(name));
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.uniform_int(0, i + 1))]);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] =
        static_cast<float>((static_cast<double>(order[static_cast<size_t>(i)]) - n / 2.0 + 0.5) * 0.05 + offset);
  }
  return b.weight(name, Tensor::from_f32(shape, v));
}

Graph unary_graph(OpKind kind, Attrs attrs = {}, float lo = -1.5f, float hi = 1.5f) {
  GraphBuilder b(std::string("fd_") + std::string(op_name(kind)));
  b.output("y", b.op(kind, {uniform_weight(b, "x", {3, 5}, lo, hi)}, std::move(attrs)));
  return b.finish();
}

// a op b with b broadcast along dim 0 and a size-1 dim, both as weights.
Graph binary_graph(OpKind kind, float b_lo = -1.0f, float b_hi = 1.0f) {
  GraphBuilder b(std::string("fd_") + std::string(op_name(kind)));
  const ValueId x = uniform_weight(b, "a", {2, 3, 4});
  const ValueId y = uniform_weight(b, "b", {3, 1}, b_lo, b_hi);
  b.output("y", b.op(kind, {x, y}));
  return b.finish();
}

TEST(AutodiffFd, Relu) {
  GraphBuilder b("fd_relu");
  b.output("y", b.relu(grid_weight(b, "x", {4, 6})));
  expect_fd(b.finish(), {}, kKinked);
}
TEST(AutodiffFd, GeluErf) { expect_fd(unary_graph(OpKind::Gelu, {{"approximate", std::string("none")}}, -3, 3)); }
TEST(AutodiffFd, GeluTanh) { expect_fd(unary_graph(OpKind::Gelu, {{"approximate", std::string("tanh")}}, -3, 3)); }
TEST(AutodiffFd, Tanh) { expect_fd(unary_graph(OpKind::Tanh)); }
TEST(AutodiffFd, Exp) { expect_fd(unary_graph(OpKind::Exp)); }
TEST(AutodiffFd, Log) { expect_fd(unary_graph(OpKind::Log, {}, 0.5f, 2.0f)); }
TEST(AutodiffFd, Sqrt) { expect_fd(unary_graph(OpKind::Sqrt, {}, 0.5f, 2.0f)); }
TEST(AutodiffFd, Rsqrt) { expect_fd(unary_graph(OpKind::Rsqrt, {}, 0.5f, 2.0f)); }
TEST(AutodiffFd, Neg) { expect_fd(unary_graph(OpKind::Neg)); }
TEST(AutodiffFd, Sigmoid) { expect_fd(unary_graph(OpKind::Sigmoid, {}, -3, 3)); }
TEST(AutodiffFd, Silu) { expect_fd(unary_graph(OpKind::Silu, {}, -3, 3)); }
TEST(AutodiffFd, Erf) { expect_fd(unary_graph(OpKind::Erf)); }
TEST(AutodiffFd, Sin) { expect_fd(unary_graph(OpKind::Sin, {}, -3, 3)); }
TEST(AutodiffFd, Cos) { expect_fd(unary_graph(OpKind::Cos, {}, -3, 3)); }

TEST(AutodiffFd, AddBroadcast) { expect_fd(binary_graph(OpKind::Add)); }
TEST(AutodiffFd, SubBroadcast) { expect_fd(binary_graph(OpKind::Sub)); }
TEST(AutodiffFd, MulBroadcast) { expect_fd(binary_graph(OpKind::Mul)); }
TEST(AutodiffFd, DivBroadcast) { expect_fd(binary_graph(OpKind::Div, 0.5f, 2.0f)); }

TEST(AutodiffFd, MaximumBroadcast) {
  GraphBuilder b("fd_maximum");
  const ValueId x = grid_weight(b, "a", {2, 3, 4});
  const ValueId y = grid_weight(b, "b", {3, 1}, 0.0125);  // off both grids a can be on: no ties
  b.output("y", b.op(OpKind::Maximum, {x, y}));
  expect_fd(b.finish(), {}, kKinked);
}

TEST(AutodiffFd, Cast) {
  GraphBuilder b("fd_cast");
  const ValueId x = uniform_weight(b, "x", {3, 4});
  const ValueId y = b.op(OpKind::Cast, {b.mul(x, x)}, {{"dtype", std::string("bf16")}});
  b.output("y", y);
  const Graph g = b.finish();
  EXPECT_EQ(g.type(g.outputs[0].value).dtype, DType::BF16);
  expect_fd(g);
}

TEST(AutodiffFd, MatmulBroadcastBatch) {
  GraphBuilder b("fd_matmul");
  const ValueId a = uniform_weight(b, "a", {2, 3, 4});
  const ValueId w = uniform_weight(b, "b", {4, 5});
  const ValueId c = uniform_weight(b, "c", {1, 5, 2});
  b.output("y", b.matmul(b.matmul(a, w), c));
  expect_fd(b.finish());
}

TEST(AutodiffFd, LinearWithBias) {
  GraphBuilder b("fd_linear");
  const ValueId x = uniform_weight(b, "x", {2, 3, 4});
  b.output("y", b.linear(x, uniform_weight(b, "w", {5, 4}), uniform_weight(b, "bias", {5})));
  expect_fd(b.finish());
}

Graph conv_graph(Attrs attrs, int64_t groups, Shape x_shape, Shape w_shape) {
  GraphBuilder b("fd_conv2d");
  attrs.set("groups", groups);
  const ValueId x = uniform_weight(b, "x", x_shape);
  const ValueId w = uniform_weight(b, "w", w_shape);
  const ValueId bias = uniform_weight(b, "bias", {w_shape[0]});
  b.output("y", b.op(OpKind::Conv2d, {x, w, bias}, std::move(attrs)));
  return b.finish();
}

TEST(AutodiffFd, Conv2dStridePaddingDilationGroups) {
  expect_fd(conv_graph({{"stride", std::vector<int64_t>{2, 1}},
                        {"padding", std::vector<int64_t>{1, 2}},
                        {"dilation", std::vector<int64_t>{2, 1}}},
                       2, {2, 4, 7, 6}, {6, 2, 3, 3}));
}

TEST(AutodiffFd, Conv2dPlain) { expect_fd(conv_graph({}, 1, {1, 3, 5, 5}, {4, 3, 3, 2})); }

TEST(AutodiffFd, MaxPool2d) {
  GraphBuilder b("fd_max_pool2d");
  b.output("y", b.op(OpKind::MaxPool2d, {grid_weight(b, "x", {2, 2, 7, 6})},
                     {{"kernel", std::vector<int64_t>{3, 2}},
                      {"stride", std::vector<int64_t>{2, 2}},
                      {"padding", std::vector<int64_t>{1, 1}}}));
  expect_fd(b.finish(), {}, kKinked);
}

Graph avg_pool_graph(int64_t count_include_pad) {
  GraphBuilder b("fd_avg_pool2d");
  b.output("y", b.op(OpKind::AvgPool2d, {uniform_weight(b, "x", {2, 2, 7, 6})},
                     {{"kernel", std::vector<int64_t>{3, 2}},
                      {"stride", std::vector<int64_t>{2, 1}},
                      {"padding", std::vector<int64_t>{1, 1}},
                      {"count_include_pad", count_include_pad}}));
  return b.finish();
}

TEST(AutodiffFd, AvgPool2dCountIncludePad) { expect_fd(avg_pool_graph(1)); }
TEST(AutodiffFd, AvgPool2dExcludePad) { expect_fd(avg_pool_graph(0)); }

TEST(AutodiffFd, GlobalAvgPool2d) {
  GraphBuilder b("fd_global_avg_pool2d");
  b.output("y", b.op(OpKind::GlobalAvgPool2d, {uniform_weight(b, "x", {2, 3, 4, 5})}));
  expect_fd(b.finish());
}

TEST(AutodiffFd, BatchNormAllParameters) {
  GraphBuilder b("fd_batch_norm");
  const ValueId x = uniform_weight(b, "x", {2, 3, 4, 4});
  const ValueId y = b.op(OpKind::BatchNorm,
                         {x, uniform_weight(b, "scale", {3}), uniform_weight(b, "bias", {3}),
                          uniform_weight(b, "mean", {3}), uniform_weight(b, "var", {3}, 0.5f, 1.5f)},
                         {{"eps", 1e-5}});
  b.output("y", y);
  const Graph g = b.finish();
  const auto training = compiler::build_training_graph(g, "");
  EXPECT_EQ(training.with_gradient, (std::vector<std::string>{"x", "scale", "bias", "mean", "var"}));
  expect_fd(g);
}

TEST(AutodiffFd, LayerNorm) {
  GraphBuilder b("fd_layer_norm");
  const ValueId x = uniform_weight(b, "x", {2, 3, 6}, -2, 2);
  b.output("y", b.op(OpKind::LayerNorm, {x, uniform_weight(b, "gamma", {6}), uniform_weight(b, "beta", {6})},
                     {{"eps", 1e-5}}));
  expect_fd(b.finish());
}

TEST(AutodiffFd, SoftmaxMiddleAxis) {
  GraphBuilder b("fd_softmax");
  b.output("y", b.softmax(uniform_weight(b, "x", {2, 5, 3}, -2, 2), 1));
  expect_fd(b.finish());
}

TEST(AutodiffFd, EmbeddingRepeatedIds) {
  GraphBuilder b("fd_embedding");
  const ValueId ids = b.input("ids", DType::I64, {2, 4});
  const ValueId table = uniform_weight(b, "table", {6, 3});
  b.output("y", b.op(OpKind::Embedding, {ids, table}));
  const Graph g = b.finish();
  expect_fd(g, {{"ids", Tensor::from_i64({2, 4}, {0, 5, 2, 2, 5, 1, 2, 0})}});
}

TEST(AutodiffFd, Reshape) {
  GraphBuilder b("fd_reshape");
  const ValueId x = uniform_weight(b, "x", {2, 6});
  b.output("y", b.mul(b.reshape(x, {3, 4}), uniform_weight(b, "k", {3, 4})));
  expect_fd(b.finish());
}

TEST(AutodiffFd, Transpose) {
  GraphBuilder b("fd_transpose");
  const ValueId x = uniform_weight(b, "x", {2, 3, 4});
  b.output("y", b.mul(b.transpose(x, {2, 0, 1}), uniform_weight(b, "k", {4, 2, 3})));
  expect_fd(b.finish());
}

TEST(AutodiffFd, ConcatThreeOperands) {
  GraphBuilder b("fd_concat");
  const ValueId x0 = uniform_weight(b, "x0", {2, 1, 3});
  const ValueId x1 = uniform_weight(b, "x1", {2, 4, 3});
  const ValueId x2 = uniform_weight(b, "x2", {2, 2, 3});
  b.output("y", b.op(OpKind::Exp, {b.concat({x0, x1, x2}, 1)}));
  expect_fd(b.finish());
}

TEST(AutodiffFd, SliceStepAndNegativeStart) {
  GraphBuilder b("fd_slice");
  const ValueId x = uniform_weight(b, "x", {3, 9, 2});
  b.output("y", b.op(OpKind::Exp, {b.slice(x, 1, -8, 9, 3)}));
  expect_fd(b.finish());
}

Graph reduce_graph(OpKind kind, std::vector<int64_t> axes, int64_t keepdim, bool grid) {
  GraphBuilder b(std::string("fd_") + std::string(op_name(kind)));
  const ValueId x = grid ? grid_weight(b, "x", {3, 4, 5}) : uniform_weight(b, "x", {3, 4, 5});
  b.output("y", b.op(kind, {x}, {{"axes", std::move(axes)}, {"keepdim", keepdim}}));
  return b.finish();
}

TEST(AutodiffFd, ReduceSum) { expect_fd(reduce_graph(OpKind::ReduceSum, {0, 2}, 0, false)); }
TEST(AutodiffFd, ReduceMean) { expect_fd(reduce_graph(OpKind::ReduceMean, {-1}, 1, false)); }
TEST(AutodiffFd, ReduceMax) { expect_fd(reduce_graph(OpKind::ReduceMax, {1}, 0, true), {}, kKinked); }

TEST(AutodiffFd, RmsNormComposite) {
  GraphBuilder b("fd_rms_norm");
  const ValueId x = uniform_weight(b, "x", {2, 3, 8}, -2, 2);
  b.output("y", b.op(OpKind::RmsNorm, {x, uniform_weight(b, "w", {8})},
                     {{"eps", 1e-6}, {"form", std::string("cast_before_weight")}}));
  expect_fd(b.finish());
}

Graph sdpa_graph(bool with_mask, bool mask_as_weight) {
  GraphBuilder b("fd_sdpa");
  const ValueId q = uniform_weight(b, "q", {2, 3, 4});
  const ValueId kt = uniform_weight(b, "kt", {2, 4, 5});
  const ValueId v = uniform_weight(b, "v", {2, 5, 3});
  std::vector<ValueId> in{q, kt, v};
  if (with_mask) {
    std::vector<float> causal(15);
    for (int64_t s = 0; s < 3; ++s)
      for (int64_t t = 0; t < 5; ++t) causal[static_cast<size_t>(s * 5 + t)] = t > s + 2 ? -30.0f : 0.0f;
    in.push_back(mask_as_weight ? b.weight("mask", Tensor::from_f32({3, 5}, causal))
                                : b.input("mask", DType::F32, {3, 5}));
  }
  b.output("y", b.op(OpKind::Sdpa, in, {{"scale", 0.5}}));
  return b.finish();
}

TEST(AutodiffFd, SdpaComposite) { expect_fd(sdpa_graph(false, false)); }

TEST(AutodiffFd, SdpaCompositeWithMask) {
  std::vector<float> causal(15);
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t t = 0; t < 5; ++t) causal[static_cast<size_t>(s * 5 + t)] = t > s + 2 ? -30.0f : 0.0f;
  expect_fd(sdpa_graph(true, false), {{"mask", Tensor::from_f32({3, 5}, causal)}});
}

TEST(AutodiffFd, SdpaMaskWeightGetsNoGradient) {
  const auto training = compiler::build_training_graph(sdpa_graph(true, true), "");
  EXPECT_EQ(training.with_gradient, (std::vector<std::string>{"q", "kt", "v"}));
  EXPECT_EQ(training.without_gradient, (std::vector<std::string>{"mask"}));
}

// topk_mask passes no gradient: y = topk_mask(x) * x has dy/dx = mask.
TEST(AutodiffFd, TopkMaskPassesZeroGradient) {
  GraphBuilder b("fd_topk_mask");
  const ValueId x = grid_weight(b, "x", {3, 6});
  b.output("y", b.mul(b.op(OpKind::TopkMask, {x}, {{"k", int64_t{2}}, {"axis", int64_t{-1}}}), x));
  expect_fd(b.finish(), {}, kKinked);
}

// The check has teeth: the test-only hook makes mul's rule wrong and the
// same comparison fails by far more than its tolerance.
TEST(AutodiffFd, WrongRuleHookIsCaught) {
  ::setenv(compiler::kWrongVjpEnv, "mul", 1);
  const double worst = worst_fd_error(binary_graph(OpKind::Mul), {}, {}, false);
  ::unsetenv(compiler::kWrongVjpEnv);
  EXPECT_GT(worst, 0.1);
}

}  // namespace
}  // namespace meshtest::testing
