// The importer's fused-op patterns (frontends/stablehlo/stablehlo_import_patterns.cpp):
// each fused op meshtest writes (composites on) reads back as that op, and
// runs bit-identically on the CPU reference; and the near misses that do
// not mean the same thing stay as the StableHLO ops they are.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <map>
#include <string>
#include <vector>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "frontends/stablehlo/stablehlo_writer.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::frontends::stablehlo {
namespace {

Graph import_text(const std::string& text) { return import_stablehlo(parse_mlir(text, "t.mlir"), "t.mlir").graph; }

// The op names of a graph, in order, constants left out.
std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> names;
  for (const meshtest::Op& op : g.ops) {
    if (op.kind != OpKind::Constant) names.emplace_back(op_name(op.kind));
  }
  return names;
}

Tensor random(const Shape& shape, uint64_t seed) { return random_normal(shape, seed); }

// One fused op in a graph of its own: written with composites and inline
// weights, read back, the same ops and the same bits on the reference.
struct FusedCase {
  std::string name;
  std::function<void(GraphBuilder&)> build;  // inputs x0, x1, ... (f32), weights, one output
  // False for the compiler-only composites (rms_norm, sdpa), which the
  // reference does not run: their ops are compared, not their bits.
  bool reference_runs = true;
};

void PrintTo(const FusedCase& c, std::ostream* os) { *os << c.name; }

void expect_round_trip(const FusedCase& c) {
  GraphBuilder b(c.name);
  c.build(b);
  Graph original = b.finish();
  original.materialize_weights();
  WriteOptions options;
  options.composites = true;
  options.inline_weights = true;
  const Graph read = import_text(write_stablehlo(original, options));
  EXPECT_EQ(op_names(read), op_names(original)) << c.name;
  if (!c.reference_runs) return;
  std::map<std::string, Tensor> feeds, read_feeds;
  const std::vector<const Param*> inputs = original.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& type = original.type(inputs[i]->value);
    const Tensor t = is_floating(type.dtype) ? random(type.shape, 7 + i) : Tensor(type.dtype, type.shape);  // ids: 0
    feeds[inputs[i]->name] = t;
    read_feeds["arg" + std::to_string(i)] = t;
  }
  const Tensor want = runtime::run_reference(original, feeds).at(0);
  const Tensor got = runtime::run_reference(read, read_feeds).at(0);
  ASSERT_EQ(want.shape(), got.shape()) << c.name;
  EXPECT_EQ(want.to_f32_vector(), got.to_f32_vector()) << c.name;
}

Attrs pair(const char* name, int64_t a, int64_t b) { return {{name, std::vector<int64_t>{a, b}}}; }

Attrs merged(std::initializer_list<Attrs> parts) {
  Attrs out;
  for (const Attrs& p : parts) {
    for (const auto& [k, v] : p.values()) out.set(k, v);
  }
  return out;
}

ValueId w(GraphBuilder& b, const std::string& name, const Shape& shape) {
  return b.weight(name, shape, Initializer::normal(0.0, 0.5, hash_seed(name)));
}

const std::vector<FusedCase>& fused_cases() {
  using K = OpKind;
  static const std::vector<FusedCase> cases = {
      {"conv2d_bias_strided_grouped",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {1, 4, 9, 9});
         Attrs a = merged({pair("stride", 2, 1), pair("padding", 1, 2), pair("dilation", 1, 2)});
         a.set("groups", int64_t{2});
         b.output("y", b.op(K::Conv2d, {x, w(b, "w", {6, 2, 3, 3}), w(b, "b", {6})}, a));
       }},
      {"conv2d_no_bias",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 8, 8});
         b.output("y", b.op(K::Conv2d, {x, w(b, "w", {4, 3, 3, 3})}, pair("padding", 1, 1)));
       }},
      {"linear_bias",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 8});
         b.output("y", b.linear(x, w(b, "w", {5, 8}), w(b, "b", {5})));
       }},
      {"matmul_batch_broadcast",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 1, 4, 5});
         const ValueId y = b.input("y", DType::F32, {2, 3, 5, 6});
         b.output("z", b.op(K::Matmul, {x, y}));
       }},
      {"max_pool2d",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {1, 2, 9, 9});
         b.output("y", b.op(K::MaxPool2d, {x},
                            merged({pair("kernel", 3, 3), pair("stride", 2, 2), pair("padding", 1, 1)})));
       }},
      {"avg_pool2d",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {1, 2, 8, 8});
         b.output("y", b.op(K::AvgPool2d, {x}, merged({pair("kernel", 2, 2), pair("stride", 2, 2)})));
       }},
      {"global_avg_pool2d",
       [](GraphBuilder& b) { b.output("y", b.op(K::GlobalAvgPool2d, {b.input("x", DType::F32, {2, 3, 5, 5})})); }},
      {"batch_norm",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 4, 4});
         const ValueId var = b.weight("var", {3}, Initializer::uniform(0.5, 1.5, 3));
         b.output("y", b.op(K::BatchNorm, {x, w(b, "g", {3}), w(b, "b", {3}), w(b, "m", {3}), var}, {{"eps", 1e-5}}));
       }},
      {"relu", [](GraphBuilder& b) { b.output("y", b.relu(b.input("x", DType::F32, {4, 6}))); }},
      {"silu", [](GraphBuilder& b) { b.output("y", b.op(K::Silu, {b.input("x", DType::F32, {4, 6})})); }},
      {"softmax",
       [](GraphBuilder& b) { b.output("y", b.op(K::Softmax, {b.input("x", DType::F32, {2, 3, 7})}, {{"axis", int64_t{-1}}})); }},
      {"reduce_mean_keepdim",
       [](GraphBuilder& b) {
         b.output("y", b.op(K::ReduceMean, {b.input("x", DType::F32, {2, 3, 8})},
                            {{"axes", std::vector<int64_t>{2}}, {"keepdim", int64_t{1}}}));
       }},
      {"gelu", [](GraphBuilder& b) { b.output("y", b.op(K::Gelu, {b.input("x", DType::F32, {4, 6})})); }},
      {"gelu_tanh",
       [](GraphBuilder& b) {
         b.output("y", b.op(K::Gelu, {b.input("x", DType::F32, {4, 6})}, {{"approximate", std::string("tanh")}}));
       }},
      {"layer_norm",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 8});
         b.output("y", b.op(K::LayerNorm, {x, w(b, "g", {8}), w(b, "b", {8})}, {{"eps", 1e-5}}));
       }},
      {"rms_norm",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 8});
         b.output("y", b.op(K::RmsNorm, {x, w(b, "g", {8})}, {{"eps", 1e-6}}));
       },
       false},
      {"embedding",
       [](GraphBuilder& b) {
         const ValueId ids = b.input("ids", DType::I64, {2, 3});
         b.output("y", b.op(K::Embedding, {ids, w(b, "table", {1, 4})}));
       }},
      {"embedding_backward",
       [](GraphBuilder& b) {
         const ValueId ids = b.input("ids", DType::I64, {2, 3});
         const ValueId dy = b.input("dy", DType::F32, {2, 3, 4});
         b.output("y", b.op(K::EmbeddingBackward, {ids, dy}, {{"num_embeddings", int64_t{1}}}));
       }},
      {"conv2d_backward_input_grouped",
       [](GraphBuilder& b) {
         const ValueId dy = b.input("dy", DType::F32, {1, 4, 5, 5});
         Attrs a = merged({pair("stride", 2, 2), pair("padding", 1, 1), pair("dilation", 1, 1)});
         a.set("groups", int64_t{2});
         a.set("input_shape", std::vector<int64_t>{1, 4, 9, 9});
         b.output("dx", b.op(K::Conv2dBackwardInput, {dy, w(b, "w", {4, 2, 3, 3})}, a));
       }},
      {"conv2d_backward_weight",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {2, 3, 8, 8});
         const ValueId dy = b.input("dy", DType::F32, {2, 4, 4, 4});
         Attrs a = merged({pair("stride", 2, 2), pair("padding", 1, 1), pair("dilation", 1, 1)});
         a.set("weight_shape", std::vector<int64_t>{4, 3, 3, 3});
         b.output("dw", b.op(K::Conv2dBackwardWeight, {x, dy}, a));
       }},
      {"max_pool2d_backward",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", DType::F32, {1, 2, 8, 8});
         const ValueId dy = b.input("dy", DType::F32, {1, 2, 4, 4});
         b.output("dx", b.op(K::MaxPool2dBackward, {x, dy},
                             merged({pair("kernel", 3, 3), pair("stride", 2, 2), pair("padding", 1, 1)})));
       }},
      {"slice_backward",
       [](GraphBuilder& b) {
         const ValueId dy = b.input("dy", DType::F32, {2, 3});
         b.output("dx", b.op(K::SliceBackward, {dy},
                             {{"axis", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{7}}, {"step", int64_t{2}},
                              {"input_shape", std::vector<int64_t>{2, 8}}}));
       }},
      {"reduce_sum_keepdim",
       [](GraphBuilder& b) {
         b.output("y", b.op(K::ReduceSum, {b.input("x", DType::F32, {2, 3, 8})},
                            {{"axes", std::vector<int64_t>{0, 2}}, {"keepdim", int64_t{1}}}));
       }},
      {"greater",
       [](GraphBuilder& b) {
         b.output("y", b.op(K::Greater, {b.input("x", DType::F32, {2, 3}), b.input("t", DType::F32, {3})}));
       }},
      {"sdpa_mask",
       [](GraphBuilder& b) {
         const ValueId q = b.input("q", DType::F32, {1, 2, 5, 4});
         const ValueId kt = b.input("kt", DType::F32, {1, 2, 4, 5});
         const ValueId v = b.input("v", DType::F32, {1, 2, 5, 4});
         const ValueId mask = b.input("mask", DType::F32, {1, 1, 5, 5});
         b.output("y", b.op(K::Sdpa, {q, kt, v, mask}, {{"scale", 0.5}}));
       },
       false},
  };
  return cases;
}

class FusedOpReadsBack : public ::testing::TestWithParam<FusedCase> {};

TEST_P(FusedOpReadsBack, AsItselfWithTheSameBits) { expect_round_trip(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Patterns, FusedOpReadsBack, ::testing::ValuesIn(fused_cases()),
                         [](const ::testing::TestParamInfo<FusedCase>& info) { return info.param.name; });

// ---- near misses: not the same meaning, so not the fused op ----

TEST(ImportPatterns, ConvolutionWithLhsDilationStaysConvolution) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"convolution"});
}

TEST(ImportPatterns, ConvolutionWithAsymmetricPaddingOrOtherLayoutStaysConvolution) {
  Graph g = import_text(R"(
func.func @main(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 1], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"convolution"});
  g = import_text(R"(
func.func @main(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>
  return %0 : tensor<1x3x3x1xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"convolution"});
}

TEST(ImportPatterns, DotGeneralOutsideLinearAndMatmulLayoutsStaysDotGeneral) {
  // x[2,3,8] contracting its last dim with w's dim 0: x @ w, not linear's x @ w^T.
  const Graph g = import_text(R"(
func.func @main(%x: tensor<2x3x8xf32>, %w: tensor<8x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [2] x [0] : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"dot_general"});
}

// A 2x2 max window from init 0 is max(0, window): not max_pool2d.
TEST(ImportPatterns, ReduceWindowMaxFromZeroStaysReduceWindow) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"reduce_window"});
}

// Window sums of a 2x2 window divided by 3: not an average.
TEST(ImportPatterns, WindowSumOverAnotherCountIsNotAvgPool) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %three = stablehlo.constant dense<3.000000e+00> : tensor<1x1x2x2xf32>
  %1 = stablehlo.divide %0, %three : tensor<1x1x2x2xf32>
  return %1 : tensor<1x1x2x2xf32>
})");
  EXPECT_EQ(op_names(g), (std::vector<std::string>{"reduce_window", "div"}));
}

// maximum(x, 0) turns -0 into +0, relu keeps it: JAX's relu stays maximum.
TEST(ImportPatterns, MaximumWithZeroIsNotRelu) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
  %0 = stablehlo.maximum %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  EXPECT_EQ(op_names(g), std::vector<std::string>{"maximum"});
  const Tensor minus_zero = Tensor::from_f32({4}, {-0.0f, -1.0f, 2.0f, 0.0f});
  const Tensor y = runtime::run_reference(g, {{"arg0", minus_zero}}).at(0);
  EXPECT_FALSE(std::signbit(y.to_f32_vector()[0]));  // relu would keep the sign
}

// A total-order compare puts -0 below +0, so select(x < 0, 0, x) would flip -0: not relu.
TEST(ImportPatterns, TotalOrderSelectIsNotRelu) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
  %lt = stablehlo.compare  LT, %x, %zero,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %0 = stablehlo.select %lt, %zero, %x : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  EXPECT_EQ(op_names(g), (std::vector<std::string>{"compare", "select"}));
}

// exp(x - max) / sum over different axes is not a softmax.
TEST(ImportPatterns, NormalizingOverAnotherAxisIsNotSoftmax) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
  %d = stablehlo.subtract %x, %mb : tensor<2x3xf32>
  %e = stablehlo.exponential %d : tensor<2x3xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = stablehlo.divide %e, %sb : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
})");
  for (const std::string& name : op_names(g)) EXPECT_NE(name, "softmax");
}

// x * logistic(y) with y != x is not silu.
TEST(ImportPatterns, ProductWithAnotherLogisticIsNotSilu) {
  const Graph g = import_text(R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = stablehlo.logistic %y : tensor<4xf32>
  %0 = stablehlo.multiply %x, %s : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  EXPECT_EQ(op_names(g), (std::vector<std::string>{"sigmoid", "mul"}));
}

}  // namespace
}  // namespace meshtest::frontends::stablehlo
