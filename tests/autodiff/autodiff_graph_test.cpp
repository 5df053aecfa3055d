// build_training_graph's contract (inputs, outputs, with/without gradient,
// accumulation, dtypes, errors), the classification of every op of the IR,
// the text form of training graphs, and the wrong-VJP hook vs the compile cache.
#include <gtest/gtest.h>

#include <cstdlib>

#include "compiler/compile_cache.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/ir_text.h"
#include "core/rng.h"
#include "tests/autodiff/autodiff_test_util.h"

namespace meshtest::testing {
namespace {

using compiler::build_training_graph;
using compiler::Differentiability;

// A newly added op must be classified in compiler/autodiff/vjp_rules.cpp.
TEST(AutodiffRules, EveryOpIsClassified) {
  for (OpKind kind : all_ops()) {
    const Differentiability d = compiler::differentiability(kind);
    EXPECT_NE(d, Differentiability::Unclassified)
        << op_name(kind) << " is not listed in compiler/autodiff/vjp_rules.cpp";
    EXPECT_EQ(compiler::has_vjp_rule(kind), d == Differentiability::Rule) << op_name(kind);
  }
}

TEST(AutodiffRules, NonDifferentiableOpsSaySo) {
  for (OpKind kind : {OpKind::TopkMask, OpKind::Greater, OpKind::Constant}) {
    EXPECT_EQ(compiler::differentiability(kind), Differentiability::NonDifferentiable) << op_name(kind);
    EXPECT_FALSE(compiler::has_vjp_rule(kind));
  }
  for (OpKind kind : {OpKind::Conv2dBackwardInput, OpKind::Conv2dBackwardWeight, OpKind::MaxPool2dBackward,
                      OpKind::AvgPool2dBackward, OpKind::EmbeddingBackward, OpKind::SliceBackward, OpKind::AllReduce}) {
    EXPECT_EQ(compiler::differentiability(kind), Differentiability::AfterAutodiff) << op_name(kind);
  }
  for (OpKind kind : {OpKind::Gelu, OpKind::BatchNorm, OpKind::Embedding, OpKind::RmsNorm, OpKind::Sdpa}) {
    EXPECT_TRUE(compiler::has_vjp_rule(kind)) << op_name(kind);
  }
}

Graph small_net() {
  GraphBuilder b("small");
  const ValueId x = b.input("x", DType::F32, {2, 4});
  const ValueId ids = b.input("ids", DType::I64, {2});
  const ValueId w1 = b.weight("w1", {3, 4}, Initializer::normal(0, 0.5, 1));
  const ValueId table = b.weight("table", random_normal({5, 3}, 2));
  b.weight("unused", {3}, Initializer::constant(1.0));
  const ValueId gate = b.weight("gate", {2, 3}, Initializer::normal(0, 1, 3));
  const ValueId h = b.add(b.linear(x, w1), b.op(OpKind::Embedding, {ids, table}));
  // gate only reaches the output through topk_mask: no gradient.
  const ValueId masked = b.mul(h, b.op(OpKind::TopkMask, {gate}, {{"k", int64_t{1}}, {"axis", int64_t{-1}}}));
  b.output("aux", h);
  b.output("y", b.mul(masked, h));  // h used twice: gradients accumulate
  return b.finish();
}

TEST(TrainingGraph, InputsOutputsAndGradientLists) {
  const Graph forward = small_net();
  const auto t = build_training_graph(forward, "y");
  EXPECT_EQ(t.output, "y");
  std::vector<std::string> inputs;
  for (const Param* p : t.graph.inputs()) inputs.push_back(p->name);
  EXPECT_EQ(inputs, (std::vector<std::string>{"x", "ids", "seed_gradient"}));
  EXPECT_EQ(t.graph.type(t.graph.find_param("seed_gradient")->value), forward.type(forward.outputs[1].value));
  EXPECT_EQ(t.with_gradient, (std::vector<std::string>{"w1", "table"}));
  EXPECT_EQ(t.without_gradient, (std::vector<std::string>{"unused", "gate"}));
  ASSERT_EQ(t.graph.outputs.size(), 3u);
  EXPECT_EQ(t.graph.outputs[0].name, "y");
  EXPECT_EQ(t.graph.outputs[1].name, "grad/w1");
  EXPECT_EQ(t.graph.outputs[2].name, "grad/table");
  // Weights share storage with the forward graph; lazy weights stay lazy.
  EXPECT_EQ(t.graph.find_param("table")->data.raw_data(), forward.find_param("table")->data.raw_data());
  EXPECT_TRUE(t.graph.find_param("w1")->init.has_value());
  EXPECT_FALSE(t.graph.find_param("w1")->data.defined() && t.graph.find_param("w1")->data.numel() > 0);
}

TEST(TrainingGraph, EmptyOutputNameMeansTheFirst) {
  const auto t = build_training_graph(small_net(), "");
  EXPECT_EQ(t.output, "aux");
  EXPECT_EQ(t.graph.outputs[0].name, "aux");
  EXPECT_THROW(build_training_graph(small_net(), "nope"), CompileError);
}

// d/dw sum(seed * (x w)^2 ) accumulates both uses of the product.
TEST(TrainingGraph, GradientsOfValuesUsedTwiceAccumulate) {
  GraphBuilder b("square");
  const ValueId w = b.weight("w", Tensor::from_f32({2}, {3.0f, -2.0f}));
  b.output("y", b.mul(w, w));
  const auto t = build_training_graph(b.finish(), "");
  const auto out = run_training_reference(t, {}, Tensor::from_f32({2}, {1.0f, 0.5f}));
  EXPECT_EQ(out.at("grad/w").to_f32_vector(), (std::vector<float>{6.0f, -2.0f}));
}

TEST(TrainingGraph, GradientsKeepTheForwardDtype) {
  GraphBuilder b("bf16");
  const ValueId x = b.input("x", DType::BF16, {2, 4});
  const ValueId w = b.weight("w", {3, 4}, Initializer::normal(0, 1, 1), DType::BF16);
  const ValueId w32 = b.weight("w32", {3}, Initializer::normal(0, 1, 2));
  b.output("y", b.add(b.linear(x, w), b.op(OpKind::Cast, {w32}, {{"dtype", std::string("bf16")}})));
  const auto t = build_training_graph(b.finish(), "");
  EXPECT_EQ(t.graph.type(t.graph.outputs[1].value).dtype, DType::BF16);
  EXPECT_EQ(t.graph.type(t.graph.outputs[2].value).dtype, DType::F32);
}

TEST(TrainingGraph, BackwardOpOnAGradientPathIsACompileErrorNamingIt) {
  GraphBuilder b("twice");
  const ValueId w = b.weight("w", {4}, Initializer::normal(0, 1, 1));
  b.output("y", b.op(OpKind::SliceBackward, {w},
                     {{"axis", int64_t{0}},
                      {"start", int64_t{0}},
                      {"end", int64_t{8}},
                      {"step", int64_t{2}},
                      {"input_shape", Shape{8}}}));
  try {
    build_training_graph(b.finish(), "");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("slice_backward"), std::string::npos) << e.what();
  }
}

// Every new op prints and parses back (the printer/parser are generic over attrs).
TEST(TrainingGraph, TextFormRoundTripsWithEveryBackwardOp) {
  GraphBuilder b("all_backward_ops");
  const ValueId x = b.weight("x", {1, 2, 6, 6}, Initializer::normal(0, 1, 1));
  const ValueId w = b.weight("w", {2, 1, 3, 3}, Initializer::normal(0, 1, 2));
  const ValueId ids = b.input("ids", DType::I32, {3});
  const ValueId table = b.weight("table", {4, 5}, Initializer::normal(0, 1, 3));
  const ValueId c = b.op(OpKind::Conv2d, {x, w}, {{"groups", int64_t{2}}, {"padding", std::vector<int64_t>{1, 1}}});
  const ValueId p =
      b.op(OpKind::MaxPool2d, {c}, {{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}});
  const ValueId a =
      b.op(OpKind::AvgPool2d, {p}, {{"kernel", std::vector<int64_t>{2, 2}}, {"count_include_pad", int64_t{0}}});
  const ValueId s = b.slice(b.reshape(a, {1, 8}), 1, 1, 8, 2);
  const ValueId e = b.op(OpKind::Embedding, {ids, table});
  auto total = [&b](ValueId v) {
    return b.op(OpKind::ReduceSum, {v}, {{"axes", std::vector<int64_t>{0, 1}}, {"keepdim", int64_t{0}}});
  };
  b.output("y", b.op(OpKind::Maximum, {total(s), total(e)}));
  const auto t = build_training_graph(b.finish(), "");
  const std::string text = print_graph(t.graph);
  for (const char* op : {"conv2d_backward_input", "conv2d_backward_weight", "max_pool2d_backward",
                         "avg_pool2d_backward", "embedding_backward", "slice_backward", "greater"}) {
    EXPECT_NE(text.find(op), std::string::npos) << op;
  }
  EXPECT_EQ(print_graph(parse_graph(text)), text);
}

TEST(WrongVjpHook, ChangesTheTrainingGraphAndTheCompileCacheKey) {
  const Graph forward = small_net();
  const auto right = build_training_graph(forward, "y");
  ::setenv(compiler::kWrongVjpEnv, "linear", 1);
  const auto wrong = build_training_graph(forward, "y");
  ::unsetenv(compiler::kWrongVjpEnv);
  EXPECT_NE(print_graph(right.graph), print_graph(wrong.graph));
  const compiler::CompileOptions options;
  EXPECT_NE(compiler::compile_cache_key(right.graph, options, "n150 1x1"),
            compiler::compile_cache_key(wrong.graph, options, "n150 1x1"));
  // The gradient of w1 (through linear) is 1.5x the right one; table's is untouched.
  runtime::NamedTensors inputs{{"x", random_normal({2, 4}, 5)}, {"ids", Tensor::from_i64({2}, {1, 4})}};
  const Tensor seed = random_normal({2, 3}, 6);
  const auto r = run_training_reference(right, inputs, seed);
  const auto w = run_training_reference(wrong, inputs, seed);
  EXPECT_NEAR(dot(w.at("grad/w1"), r.at("grad/w1")) / dot(r.at("grad/w1"), r.at("grad/w1")), 1.5, 1e-5);
  EXPECT_EQ(w.at("grad/table").to_f32_vector(), r.at("grad/table").to_f32_vector());
}

}  // namespace
}  // namespace meshtest::testing
