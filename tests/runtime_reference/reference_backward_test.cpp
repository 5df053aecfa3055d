// The reference backward (runtime/reference/reference_backward.h) against
// central finite differences of run_reference, op by op and on small whole
// models, plus its conventions on which weights receive a gradient.
//
// Method: for the upstream gradient u and, per weight w, a random direction v
// (uniform in [-1, 1]), the projection <dL/dw, v> from the backward must equal
//   (L(w + h v) - L(w - h v)) / (2 h),   L = sum(u * forward output),
// with sums in f64. The forward runs in f32, so single ops use h = 1e-2: the
// f32 rounding of L (about 1e-7 relative) divided by 2h stays near 1e-5, while
// the O(h^2) truncation error of smooth ops stays near 1e-4 relative.
// Tolerance: 2e-3 * max(|analytic|, |numeric|, 1). Non-smooth ops (relu,
// max, pools) get inputs whose values are 0.05 or more apart from each other
// and from the kinks, so the perturbation (at most h = 0.01 per element)
// crosses none. Whole models use smaller steps (see each test): there the
// error shrinks as h does down to about 3e-4, below which f32 noise wins.
#include "runtime/reference/reference_backward.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"

namespace meshtest::runtime::testing {
namespace {

// Finite-difference step and relative tolerance.
struct FdSettings {
  double step = 1e-2;
  double rel_tol = 2e-3;
};

double dot(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_f32_vector(), y = b.to_f32_vector();
  double s = 0.0;
  for (size_t i = 0; i < x.size(); ++i) s += static_cast<double>(x[i]) * y[i];
  return s;
}

// w + scale * v, elementwise.
Tensor axpy(const Tensor& w, double scale, const Tensor& v) {
  std::vector<float> a = w.to_f32_vector();
  const std::vector<float> b = v.to_f32_vector();
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(a[i] + scale * b[i]);
  return Tensor::from_f32(w.shape(), a);
}

// Distinct values: a shuffled 0, 0.05, 0.1, ... shifted to be centred on
// `centre` (and kept 0.025 away from it), so orderings and signs survive the
// finite-difference steps.
Tensor spaced(const Shape& shape, uint64_t seed, double centre = 0.0) {
  const int64_t n = shape_numel(shape);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.uniform_int(0, i + 1))]);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] =
        static_cast<float>(centre + 0.025 + 0.05 * (static_cast<double>(order[static_cast<size_t>(i)]) - n / 2));
  }
  return Tensor::from_f32(shape, v);
}

double loss(const Graph& g, const NamedTensors& inputs, const Tensor& seed) {
  return dot(run_reference(g, inputs).at(0), seed);
}

// Checks every gradient of `result` against finite differences of the first
// output of `graph` (its weights are perturbed one at a time).
void expect_gradients_match(const Graph& graph, const NamedTensors& inputs, const Tensor& seed,
                            const ReferenceTraining& result, const FdSettings& fd) {
  ASSERT_EQ(result.with_gradient.size(), result.gradients.size());
  for (size_t i = 0; i < result.with_gradient.size(); ++i) {
    const std::string& name = result.with_gradient[i];
    const Param* p = graph.find_param(name);
    ASSERT_NE(p, nullptr) << name;
    const Tensor w = materialize(*p, graph.type(p->value)).to(DType::F32);
    ASSERT_EQ(result.gradients[i].shape(), w.shape()) << name;
    const Tensor v = random_uniform(w.shape(), hash_seed(name, 7), -1.0f, 1.0f);
    auto shifted = [&](double sign) {
      Graph g = graph;
      Param* q = g.find_param(name);
      q->data = axpy(w, sign * fd.step, v);
      q->init.reset();
      return loss(g, inputs, seed);
    };
    const double numeric = (shifted(1.0) - shifted(-1.0)) / (2.0 * fd.step);
    const double analytic = dot(result.gradients[i], v);
    const double tol = fd.rel_tol * std::max({std::abs(analytic), std::abs(numeric), 1.0});
    EXPECT_NEAR(analytic, numeric, tol) << "gradient of " << name;
  }
}

// Runs the reference backward of `graph`'s first output with a seeded
// upstream gradient, checks the forward value and every gradient.
ReferenceTraining check_graph(const Graph& graph, const NamedTensors& inputs = {}, const FdSettings& fd = {}) {
  const Tensor seed = random_normal(graph.type(graph.outputs.at(0).value).shape, 1234);
  ReferenceTraining result = run_reference_training(graph, inputs, "", seed);
  EXPECT_EQ(result.output, graph.outputs.at(0).name);
  const Tensor forward = run_reference(graph, inputs).at(0);
  EXPECT_EQ(result.forward.to_f32_vector(), forward.to_f32_vector());
  expect_gradients_match(graph, inputs, seed, result, fd);
  return result;
}

// One op whose operands are all weights w0, w1, ...: every operand's gradient is checked.
void check_op(OpKind kind, const std::vector<Tensor>& operands, Attrs attrs = {}) {
  GraphBuilder b("single_op");
  std::vector<ValueId> ids;
  for (size_t i = 0; i < operands.size(); ++i) ids.push_back(b.weight("w" + std::to_string(i), operands[i]));
  b.output("out", b.op(kind, ids, std::move(attrs)));
  const ReferenceTraining r = check_graph(b.finish());
  size_t floating = 0;
  for (const Tensor& t : operands) floating += is_floating(t.dtype()) ? 1 : 0;
  EXPECT_EQ(r.with_gradient.size(), floating) << op_name(kind);
}

Tensor normal(const Shape& shape, uint64_t seed, float stddev = 1.0f) {
  return random_normal(shape, seed, 0.0f, stddev);
}
Tensor positive(const Shape& shape, uint64_t seed) { return random_uniform(shape, seed, 0.5f, 2.0f); }

Attrs pair_attrs(int64_t kernel, int64_t stride, int64_t padding) {
  return {{"kernel", std::vector<int64_t>{kernel, kernel}},
          {"stride", std::vector<int64_t>{stride, stride}},
          {"padding", std::vector<int64_t>{padding, padding}}};
}

TEST(ReferenceBackwardOps, SmoothUnary) {
  for (OpKind k :
       {OpKind::Tanh, OpKind::Exp, OpKind::Neg, OpKind::Sigmoid, OpKind::Silu, OpKind::Erf, OpKind::Sin, OpKind::Cos}) {
    SCOPED_TRACE(op_name(k));
    check_op(k, {normal({3, 5}, 1)});
  }
  for (OpKind k : {OpKind::Log, OpKind::Sqrt, OpKind::Rsqrt}) {
    SCOPED_TRACE(op_name(k));
    check_op(k, {positive({3, 5}, 2)});
  }
}

TEST(ReferenceBackwardOps, GeluBothForms) {
  check_op(OpKind::Gelu, {normal({4, 6}, 3, 2.0f)}, {{"approximate", std::string("none")}});
  check_op(OpKind::Gelu, {normal({4, 6}, 4, 2.0f)}, {{"approximate", std::string("tanh")}});
}

TEST(ReferenceBackwardOps, ReluAwayFromZero) { check_op(OpKind::Relu, {spaced({4, 5}, 5)}); }

TEST(ReferenceBackwardOps, BinaryWithBroadcasting) {
  for (OpKind k : {OpKind::Add, OpKind::Sub, OpKind::Mul}) {
    SCOPED_TRACE(op_name(k));
    check_op(k, {normal({2, 3, 4}, 6), normal({3, 1}, 7)});
    check_op(k, {normal({1, 4}, 8), normal({3, 1}, 9)});
  }
  check_op(OpKind::Div, {normal({2, 3, 4}, 10), positive({4}, 11)});
  check_op(OpKind::Div, {normal({2, 3}, 12), positive({2, 3}, 13)});
  check_op(OpKind::Maximum, {spaced({3, 4}, 14), spaced({3, 4}, 15, 0.0125)});
  check_op(OpKind::Maximum, {spaced({2, 3, 4}, 16), spaced({4}, 17, 0.0125)});
}

TEST(ReferenceBackwardOps, MaximumTiesGoToTheFirstOperand) {
  GraphBuilder b("tie");
  const ValueId a = b.weight("a", Tensor::from_f32({3}, {1, 2, 3}));
  const ValueId c = b.weight("c", Tensor::from_f32({3}, {1, 5, 0}));
  b.output("out", b.op(OpKind::Maximum, {a, c}));
  const ReferenceTraining r = run_reference_training(b.finish(), {}, "out", Tensor::from_f32({3}, {2, 2, 2}));
  EXPECT_EQ(r.gradients.at(0).to_f32_vector(), (std::vector<float>{2, 0, 2}));
  EXPECT_EQ(r.gradients.at(1).to_f32_vector(), (std::vector<float>{0, 2, 0}));
}

TEST(ReferenceBackwardOps, MatmulBatchedAndBroadcast) {
  check_op(OpKind::Matmul, {normal({3, 4}, 20), normal({4, 5}, 21)});
  check_op(OpKind::Matmul, {normal({2, 3, 4, 5}, 22), normal({5, 6}, 23)});                // shared rhs
  check_op(OpKind::Matmul, {normal({3, 4, 5}, 24), normal({2, 1, 5, 6}, 25)});             // both broadcast
  check_op(OpKind::Matmul, {normal({4, 5}, 26), normal({2, 5, 3}, 27)});                   // lhs broadcast
  check_op(OpKind::Matmul, {normal({2, 2, 6, 4}, 28), normal({2, 2, 4, 6}, 29)});          // attention scores
  check_op(OpKind::Matmul, {normal({2, 64, 96}, 30, 0.1f), normal({96, 200}, 31, 0.1f)});  // parallel GEMM path
}

TEST(ReferenceBackwardOps, Linear) {
  check_op(OpKind::Linear, {normal({2, 3, 8}, 32), normal({5, 8}, 33), normal({5}, 34)});
  check_op(OpKind::Linear, {normal({4, 8}, 35), normal({6, 8}, 36)});
  check_op(OpKind::Linear, {normal({256, 96}, 37, 0.1f), normal({128, 96}, 38, 0.1f)});  // parallel GEMM path
}

TEST(ReferenceBackwardOps, Conv2dGeometries) {
  auto conv = [](int64_t stride, int64_t pad, int64_t dil, int64_t groups) {
    return Attrs{{"stride", std::vector<int64_t>{stride, stride}},
                 {"padding", std::vector<int64_t>{pad, pad}},
                 {"dilation", std::vector<int64_t>{dil, dil}},
                 {"groups", groups}};
  };
  // plain 3x3 with bias
  check_op(OpKind::Conv2d, {normal({2, 3, 7, 7}, 40), normal({4, 3, 3, 3}, 41, 0.3f), normal({4}, 42)},
           conv(1, 1, 1, 1));
  // groups, stride 2, padding, dilation 2
  check_op(OpKind::Conv2d, {normal({2, 4, 9, 8}, 43), normal({6, 2, 3, 3}, 44, 0.3f)}, conv(2, 2, 2, 2));
  // depthwise
  check_op(OpKind::Conv2d, {normal({2, 4, 6, 6}, 45), normal({4, 1, 3, 3}, 46, 0.3f)}, conv(2, 1, 1, 4));
  // pointwise (im2col skipped) and strided pointwise
  check_op(OpKind::Conv2d, {normal({2, 5, 4, 4}, 47), normal({3, 5, 1, 1}, 48, 0.3f), normal({3}, 49)},
           conv(1, 0, 1, 1));
  check_op(OpKind::Conv2d, {normal({2, 5, 5, 5}, 50), normal({3, 5, 1, 1}, 51, 0.3f)}, conv(2, 0, 1, 1));
  // non-square kernel (whisper's [out, in, 1, 3]) and a size large enough for the parallel GEMMs
  check_op(OpKind::Conv2d, {normal({1, 6, 1, 10}, 52), normal({4, 6, 1, 3}, 53, 0.3f)},
           {{"padding", std::vector<int64_t>{0, 1}}, {"stride", std::vector<int64_t>{1, 2}}});
  check_op(OpKind::Conv2d, {normal({2, 16, 20, 20}, 54, 0.5f), normal({32, 16, 3, 3}, 55, 0.1f)}, conv(1, 1, 1, 1));
}

TEST(ReferenceBackwardOps, Pools) {
  check_op(OpKind::MaxPool2d, {spaced({2, 2, 7, 7}, 60)}, pair_attrs(3, 2, 1));
  check_op(OpKind::MaxPool2d, {spaced({1, 3, 4, 4}, 61)}, pair_attrs(2, 2, 0));
  Attrs with_pad = pair_attrs(3, 2, 1);
  with_pad.set("count_include_pad", int64_t{1});
  check_op(OpKind::AvgPool2d, {normal({2, 2, 7, 7}, 62)}, with_pad);
  Attrs without_pad = pair_attrs(3, 2, 1);
  without_pad.set("count_include_pad", int64_t{0});
  check_op(OpKind::AvgPool2d, {normal({2, 2, 7, 7}, 63)}, without_pad);
  check_op(OpKind::GlobalAvgPool2d, {normal({2, 3, 5, 4}, 64)});
}

TEST(ReferenceBackwardOps, Norms) {
  check_op(OpKind::LayerNorm, {normal({2, 3, 8}, 70), normal({8}, 71), normal({8}, 72)}, {{"eps", 1e-5}});
  // batch_norm (inference semantics): x, scale, bias, mean and var all get their true gradients.
  GraphBuilder b("bn");
  const ValueId x = b.weight("x", normal({2, 3, 4, 4}, 73));
  const ValueId y = b.op(OpKind::BatchNorm,
                         {x, b.weight("scale", normal({3}, 74)), b.weight("bias", normal({3}, 75)),
                          b.weight("running_mean", normal({3}, 76)), b.weight("running_var", positive({3}, 77))},
                         {{"eps", 1e-5}});
  b.output("out", y);
  const ReferenceTraining r = check_graph(b.finish());
  EXPECT_EQ(r.with_gradient, (std::vector<std::string>{"x", "scale", "bias", "running_mean", "running_var"}));
  EXPECT_TRUE(r.without_gradient.empty());
}

TEST(ReferenceBackwardOps, Softmax) {
  check_op(OpKind::Softmax, {normal({2, 5, 3}, 80)}, {{"axis", int64_t{1}}});
  check_op(OpKind::Softmax, {normal({3, 7}, 81, 3.0f)}, {{"axis", int64_t{-1}}});
}

TEST(ReferenceBackwardOps, Reductions) {
  for (OpKind k : {OpKind::ReduceSum, OpKind::ReduceMean}) {
    SCOPED_TRACE(op_name(k));
    check_op(k, {normal({2, 3, 4}, 90)}, {{"axes", std::vector<int64_t>{0, 2}}, {"keepdim", int64_t{0}}});
    check_op(k, {normal({2, 3, 4}, 91)}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
  }
  check_op(OpKind::ReduceMax, {spaced({2, 3, 4}, 92)}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{0}}});
}

TEST(ReferenceBackwardOps, ReduceMaxSplitsTiesEvenly) {
  GraphBuilder b("tie");
  const ValueId x = b.weight("x", Tensor::from_f32({2, 3}, {4, 1, 4, 0, 2, 1}));
  b.output("out", b.op(OpKind::ReduceMax, {x}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{0}}}));
  const ReferenceTraining r = run_reference_training(b.finish(), {}, "", Tensor::from_f32({2}, {1, 3}));
  EXPECT_EQ(r.gradients.at(0).to_f32_vector(), (std::vector<float>{0.5f, 0, 0.5f, 0, 3, 0}));
}

TEST(ReferenceBackwardOps, DataMovement) {
  check_op(OpKind::Reshape, {normal({2, 6}, 100)}, {{"shape", std::vector<int64_t>{3, 4}}});
  check_op(OpKind::Transpose, {normal({2, 3, 4}, 101)}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  check_op(OpKind::Slice, {normal({3, 10}, 102)},
           {{"axis", int64_t{1}}, {"start", int64_t{-8}}, {"end", int64_t{9}}, {"step", int64_t{3}}});
  check_op(OpKind::Slice, {normal({5, 2}, 103)}, {{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{3}}});
  check_op(OpKind::Concat, {normal({2, 1, 3}, 104), normal({2, 4, 3}, 105), normal({2, 2, 3}, 106)},
           {{"axis", int64_t{1}}});
  check_op(OpKind::Cast, {normal({3, 4}, 107)}, {{"dtype", std::string("bf16")}});
}

TEST(ReferenceBackwardOps, EmbeddingScatterAddsRepeatedIds) {
  for (DType ids_dtype : {DType::I64, DType::I32}) {
    GraphBuilder b("embedding");
    const ValueId ids = b.input("ids", ids_dtype, {2, 3});
    b.output("out", b.op(OpKind::Embedding, {ids, b.weight("table", normal({5, 4}, 110))}));
    const Graph g = b.finish();
    const NamedTensors inputs = {{"ids", Tensor::from_i64({2, 3}, {1, 4, 1, 0, 1, 3}).to(ids_dtype)}};
    const ReferenceTraining r = check_graph(g, inputs);
    // Row 2 is never looked up: zero; row 1 three times: the sum of three dy rows.
    const std::vector<float> grad = r.gradients.at(0).to_f32_vector();
    for (int j = 0; j < 4; ++j) EXPECT_EQ(grad[static_cast<size_t>(2 * 4 + j)], 0.0f);
  }
}

// ---- which weights get a gradient ----

TEST(ReferenceBackwardConventions, WithoutGradient) {
  GraphBuilder b("conventions");
  const ValueId x = b.input("x", DType::F32, {2, 4});
  const ValueId w = b.weight("w", normal({4, 4}, 120));
  b.weight("unused", normal({3}, 121));
  const ValueId router = b.weight("router", normal({4, 4}, 122));
  const ValueId int_weight = b.weight("int_weight", Tensor::from_i64({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  const ValueId other_output = b.weight("other_output", normal({2, 4}, 123));
  // router reaches the output only through topk_mask; the integer weight only through a cast.
  const ValueId mask = b.op(OpKind::TopkMask, {b.linear(x, router)}, {{"k", int64_t{2}}, {"axis", int64_t{-1}}});
  const ValueId ints = b.op(OpKind::Cast, {int_weight}, {{"dtype", std::string("f32")}});
  b.output("logits", b.add(b.mul(b.linear(x, w), mask), ints));
  b.output("aux", b.add(other_output, x));
  const Graph g = b.finish();
  const NamedTensors inputs = {{"x", normal({2, 4}, 124)}};
  const ReferenceTraining r = run_reference_training(g, inputs, "logits", normal({2, 4}, 125));
  EXPECT_EQ(r.output, "logits");
  EXPECT_EQ(r.with_gradient, (std::vector<std::string>{"w"}));
  EXPECT_EQ(r.without_gradient, (std::vector<std::string>{"unused", "router", "int_weight", "other_output"}));
  // The second output drives backward when named.
  const ReferenceTraining aux = run_reference_training(g, inputs, "aux", normal({2, 4}, 126));
  EXPECT_EQ(aux.with_gradient, (std::vector<std::string>{"other_output"}));
  EXPECT_EQ(aux.gradients.at(0).shape(), (Shape{2, 4}));
}

TEST(ReferenceBackwardConventions, BadRequestsNameTheProblem) {
  GraphBuilder b("bad");
  const ValueId x = b.weight("x", normal({2, 3}, 130));
  b.output("out", b.relu(x));
  b.output("ints", b.op(OpKind::Cast, {x}, {{"dtype", std::string("i32")}}));
  const Graph g = b.finish();
  EXPECT_THROW(
      {
        try {
          run_reference_training(g, {}, "nope", normal({2, 3}, 1));
        } catch (const RuntimeError& e) {
          EXPECT_NE(std::string(e.what()).find("no output 'nope'"), std::string::npos) << e.what();
          throw;
        }
      },
      RuntimeError);
  EXPECT_THROW(run_reference_training(g, {}, "ints", normal({2, 3}, 1)), RuntimeError);
  EXPECT_THROW(run_reference_training(g, {}, "out", normal({3, 2}, 1)), RuntimeError);
}

// ---- small whole models ----

// conv (stride 2) -> batch_norm -> relu -> max_pool -> depthwise conv ->
// residual add -> global average pool -> linear: a ResNet/MobileNet in miniature.
TEST(ReferenceBackwardModels, SmallCnn) {
  GraphBuilder b("small_cnn");
  const ValueId image = b.input("image", DType::F32, {2, 3, 12, 12});
  ValueId x = b.op(OpKind::Conv2d, {image, b.weight("conv1.weight", normal({8, 3, 3, 3}, 140, 0.3f))},
                   {{"stride", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{1, 1}}});
  x = b.op(OpKind::BatchNorm,
           {x, b.weight("bn1.weight", positive({8}, 141)), b.weight("bn1.bias", normal({8}, 142, 0.1f)),
            b.weight("bn1.running_mean", normal({8}, 143, 0.1f)), b.weight("bn1.running_var", positive({8}, 144))},
           {{"eps", 1e-5}});
  x = b.relu(x);
  x = b.op(OpKind::MaxPool2d, {x}, pair_attrs(3, 2, 1));
  const ValueId dw = b.op(OpKind::Conv2d, {x, b.weight("dw.weight", normal({8, 1, 3, 3}, 145, 0.3f))},
                          {{"padding", std::vector<int64_t>{1, 1}}, {"groups", int64_t{8}}});
  x = b.add(x, dw);
  x = b.reshape(b.op(OpKind::GlobalAvgPool2d, {x}), {2, 8});
  b.output("logits",
           b.linear(x, b.weight("fc.weight", normal({5, 8}, 146, 0.3f)), b.weight("fc.bias", normal({5}, 147))));
  // Every relu and max_pool window of the model moves with conv1.weight, so
  // h = 1e-2 crosses kinks; 3e-4 does not, at the price of more f32 noise.
  const ReferenceTraining r = check_graph(b.finish(), {{"image", normal({2, 3, 12, 12}, 148)}}, {3e-4, 5e-3});
  EXPECT_EQ(r.with_gradient.size(), 8u);
  EXPECT_TRUE(r.without_gradient.empty());
}

// Embeddings -> layer_norm -> one attention head (transpose, scaled matmul,
// softmax, matmul) -> gelu MLP -> slice of the first token + concat, mean.
TEST(ReferenceBackwardModels, SmallTransformer) {
  constexpr int64_t kBatch = 2, kSeq = 4, kDim = 8;
  GraphBuilder b("small_transformer");
  const ValueId ids = b.input("input_ids", DType::I64, {kBatch, kSeq});
  ValueId x = b.op(OpKind::Embedding, {ids, b.weight("wte", normal({11, kDim}, 150))});
  x = b.add(x, b.slice(b.weight("wpe", normal({6, kDim}, 151, 0.1f)), 0, 0, kSeq));
  x = b.op(OpKind::LayerNorm,
           {x, b.weight("ln.weight", positive({kDim}, 152)), b.weight("ln.bias", normal({kDim}, 153))},
           {{"eps", 1e-5}});
  const ValueId q = b.linear(x, b.weight("q.weight", normal({kDim, kDim}, 154, 0.3f)));
  const ValueId k = b.linear(x, b.weight("k.weight", normal({kDim, kDim}, 155, 0.3f)));
  const ValueId v = b.linear(x, b.weight("v.weight", normal({kDim, kDim}, 156, 0.3f)));
  const ValueId scores = b.mul(b.matmul(q, b.transpose(k, {0, 2, 1})), b.constant(0.35));
  const ValueId attn = b.matmul(b.softmax(scores), v);
  x = b.add(x, attn);
  ValueId h = b.op(
      OpKind::Gelu,
      {b.linear(x, b.weight("fc1.weight", normal({16, kDim}, 157, 0.3f)), b.weight("fc1.bias", normal({16}, 158)))},
      {{"approximate", std::string("tanh")}});
  x = b.add(x, b.linear(h, b.weight("fc2.weight", normal({kDim, 16}, 159, 0.3f))));
  const ValueId first = b.slice(x, 1, 0, 1);
  const ValueId pooled = b.op(OpKind::ReduceMean, {x}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{1}}});
  b.output("logits", b.reshape(b.concat({first, pooled}, 1), {kBatch, 2 * kDim}));
  // Stacked smooth ops: a smaller step keeps the O(h^2) error of the chain below tolerance.
  const ReferenceTraining r = check_graph(
      b.finish(), {{"input_ids", Tensor::from_i64({kBatch, kSeq}, {1, 3, 5, 7, 2, 3, 10, 0})}}, {1e-3, 2e-3});
  EXPECT_EQ(r.with_gradient.size(), 10u);
  EXPECT_TRUE(r.without_gradient.empty());
}

// Gated MLP with silu and a top-2 router (mixtral-style): the router weight
// gets its gradient through the softmax probabilities, not through topk_mask.
TEST(ReferenceBackwardModels, TopTwoRouter) {
  GraphBuilder b("router");
  const ValueId x = b.input("x", DType::F32, {3, 6});
  const ValueId probs = b.softmax(b.linear(x, b.weight("router.weight", normal({4, 6}, 160, 0.5f))));
  const ValueId mask = b.op(OpKind::TopkMask, {probs}, {{"k", int64_t{2}}, {"axis", int64_t{-1}}});
  ValueId weights = b.mul(probs, mask);
  weights =
      b.div(weights, b.op(OpKind::ReduceSum, {weights}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}}));
  const ValueId gate = b.op(OpKind::Silu, {b.linear(x, b.weight("gate.weight", normal({4, 6}, 161, 0.5f)))});
  const ValueId up = b.linear(x, b.weight("up.weight", normal({4, 6}, 162, 0.5f)));
  b.output("out", b.mul(b.mul(gate, up), weights));
  const ReferenceTraining r = check_graph(b.finish(), {{"x", normal({3, 6}, 163)}});
  EXPECT_EQ(r.with_gradient, (std::vector<std::string>{"router.weight", "gate.weight", "up.weight"}));
}

}  // namespace
}  // namespace meshtest::runtime::testing
