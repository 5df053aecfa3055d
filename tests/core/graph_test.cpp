// Unit tests of the graph IR: GraphBuilder shape inference for every op family,
// CompileErrors that name the op, verify_graph and weight materialization.
#include "core/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "core/error.h"
#include "core/graph_builder.h"

namespace meshtest {
namespace {

using testing::HasSubstr;
using Ints = std::vector<int64_t>;

// Runs `build` and expects a CompileError whose message contains every fragment.
void expect_compile_error(const std::function<void()>& build, std::initializer_list<std::string> fragments) {
  try {
    build();
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    for (const std::string& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f));
  }
}

TEST(GraphBuilderTest, Conv2dShapes) {
  GraphBuilder b("conv");
  const ValueId x = b.input("x", DType::F32, {2, 4, 9, 9});
  const ValueId w = b.weight("w", {6, 2, 3, 3}, Initializer::normal(0, 1, 1));
  const ValueId bias = b.weight("bias", {6}, Initializer::constant(0));
  const ValueId y = b.op(OpKind::Conv2d, {x, w, bias},
                         {{"stride", std::vector<int64_t>{2, 1}},
                          {"padding", std::vector<int64_t>{1, 0}},
                          {"dilation", std::vector<int64_t>{2, 1}},
                          {"groups", int64_t{2}}});
  // H: (9 + 2 - (2*2+1)) / 2 + 1 = 4;  W: (9 - 3) / 1 + 1 = 7
  EXPECT_EQ(b.type(y), (TensorType{DType::F32, {2, 6, 4, 7}}));
  const ValueId plain = b.op(OpKind::Conv2d, {x, b.weight("w1", {8, 4, 1, 1}, Initializer::constant(1))});
  EXPECT_EQ(b.shape(plain), (Shape{2, 8, 9, 9}));

  expect_compile_error([&] { b.op(OpKind::Conv2d, {x, w}); }, {"conv2d", "input channels"});  // groups=1 needs C=2
  expect_compile_error([&] { b.op(OpKind::Conv2d, {x, w, bias}, {{"groups", int64_t{3}}}); }, {"conv2d", "groups=3"});
  expect_compile_error(
      [&] {
        b.op(OpKind::Conv2d, {x, w}, {{"groups", int64_t{2}}, {"stride", std::vector<int64_t>{1, 1, 1}}});
      },
      {"conv2d", "stride"});
  const ValueId big = b.weight("big", {6, 2, 11, 11}, Initializer::constant(1));
  expect_compile_error([&] { b.op(OpKind::Conv2d, {x, big}, {{"groups", int64_t{2}}}); }, {"conv2d", "window"});
}

TEST(GraphBuilderTest, PoolShapes) {
  GraphBuilder b("pool");
  const ValueId x = b.input("x", DType::F32, {1, 3, 8, 8});
  const ValueId mp = b.op(OpKind::MaxPool2d, {x},
                          {{"kernel", std::vector<int64_t>{3, 3}},
                           {"stride", std::vector<int64_t>{2, 2}},
                           {"padding", std::vector<int64_t>{1, 1}}});
  EXPECT_EQ(b.shape(mp), (Shape{1, 3, 4, 4}));
  const ValueId ap = b.op(OpKind::AvgPool2d, {x}, {{"kernel", std::vector<int64_t>{2, 4}}});
  EXPECT_EQ(b.shape(ap), (Shape{1, 3, 7, 5}));
  EXPECT_EQ(b.shape(b.op(OpKind::GlobalAvgPool2d, {x})), (Shape{1, 3, 1, 1}));
  expect_compile_error(
      [&] {
        b.op(OpKind::MaxPool2d, {b.input("flat", DType::F32, {3, 8})});
      },
      {"max_pool2d", "rank 4"});
  expect_compile_error(
      [&] {
        b.op(OpKind::AvgPool2d, {x}, {{"kernel", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{2, 2}}});
      },
      {"avg_pool2d", "padding"});
}

TEST(GraphBuilderTest, MatmulBroadcastsBatchDims) {
  GraphBuilder b("mm");
  const ValueId a = b.input("a", DType::F32, {2, 1, 4, 5});
  const ValueId c = b.input("c", DType::F32, {3, 5, 6});
  EXPECT_EQ(b.shape(b.matmul(a, c)), (Shape{2, 3, 4, 6}));
  const ValueId m = b.input("m", DType::F32, {4, 5});
  const ValueId n = b.input("n", DType::F32, {5, 7});
  EXPECT_EQ(b.shape(b.matmul(m, n)), (Shape{4, 7}));
  expect_compile_error([&] { b.matmul(m, m); }, {"matmul", "contraction"});
  expect_compile_error([&] { b.matmul(b.input("v", DType::F32, {5}), n); }, {"matmul", "rank"});
  const ValueId bad_batch = b.input("bb", DType::F32, {4, 5, 6});
  expect_compile_error([&] { b.matmul(b.input("a3", DType::F32, {3, 4, 5}), bad_batch); }, {"matmul", "broadcast"});
  expect_compile_error([&] { b.matmul(m, b.input("i", DType::BF16, {5, 7})); }, {"matmul", "dtypes differ"});
}

TEST(GraphBuilderTest, LinearAndEmbedding) {
  GraphBuilder b("lin");
  const ValueId x = b.input("x", DType::F32, {2, 7, 16});
  const ValueId w = b.weight("w", {8, 16}, Initializer::normal(0, 0.1, 1));
  const ValueId bias = b.weight("b", {8}, Initializer::constant(0));
  EXPECT_EQ(b.shape(b.linear(x, w, bias)), (Shape{2, 7, 8}));
  EXPECT_EQ(b.shape(b.linear(x, w)), (Shape{2, 7, 8}));
  expect_compile_error([&] { b.linear(x, w, w); }, {"linear", "bias"});
  expect_compile_error([&] { b.linear(x, b.weight("wt", {16, 8}, Initializer::constant(0))); }, {"linear"});

  const ValueId ids = b.input("ids", DType::I64, {2, 5});
  const ValueId table = b.weight("table", {100, 32}, Initializer::normal(0, 1, 2), DType::BF16);
  EXPECT_EQ(b.type(b.op(OpKind::Embedding, {ids, table})), (TensorType{DType::BF16, {2, 5, 32}}));
  expect_compile_error([&] { b.op(OpKind::Embedding, {x, table}); }, {"embedding", "i32 or i64"});
}

TEST(GraphBuilderTest, ReshapeResolvesMinusOne) {
  GraphBuilder b("rs");
  const ValueId x = b.input("x", DType::F32, {2, 3, 4});
  EXPECT_EQ(b.shape(b.reshape(x, {-1, 4})), (Shape{6, 4}));
  EXPECT_EQ(b.shape(b.reshape(x, {2, -1})), (Shape{2, 12}));
  EXPECT_EQ(b.shape(b.reshape(x, {24})), (Shape{24}));
  expect_compile_error([&] { b.reshape(x, {5, -1}); }, {"reshape", "cannot reshape"});
  expect_compile_error([&] { b.reshape(x, {-1, -1}); }, {"reshape", "-1"});
  expect_compile_error(
      [&] {
        b.op(OpKind::Reshape, {x}, {{"shape", std::vector<int64_t>{-1, 4}}});
      },
      {"reshape", "fully resolved"});
}

TEST(GraphBuilderTest, TransposeConcatSlice) {
  GraphBuilder b("tcs");
  const ValueId x = b.input("x", DType::F32, {2, 3, 4});
  EXPECT_EQ(b.shape(b.transpose(x, {2, 0, 1})), (Shape{4, 2, 3}));
  EXPECT_EQ(b.shape(b.transpose(x, {-1, 1, 0})), (Shape{4, 3, 2}));
  expect_compile_error([&] { b.transpose(x, {0, 0, 1}); }, {"transpose", "permutation"});
  expect_compile_error([&] { b.transpose(x, {0, 1}); }, {"transpose"});

  const ValueId y = b.input("y", DType::F32, {2, 5, 4});
  EXPECT_EQ(b.shape(b.concat({x, y, x}, 1)), (Shape{2, 11, 4}));
  EXPECT_EQ(b.shape(b.concat({x, x}, -1)), (Shape{2, 3, 8}));
  expect_compile_error([&] { b.concat({x, y}, 2); }, {"concat", "differ outside axis"});
  expect_compile_error([&] { b.concat({x, y}, 3); }, {"concat", "out of range"});

  const ValueId s = b.input("s", DType::F32, {10, 4});
  EXPECT_EQ(b.shape(b.slice(s, 0, -3, 10)), (Shape{3, 4}));
  EXPECT_EQ(b.shape(b.slice(s, 0, 1, -1, 2)), (Shape{4, 4}));  // 1,3,5,7
  EXPECT_EQ(b.shape(b.slice(s, -1, -100, 100)), (Shape{10, 4}));
  EXPECT_EQ(b.shape(b.slice(s, 0, 5, 2)), (Shape{0, 4}));
  EXPECT_EQ(b.shape(b.slice(s, 1, 0, 4, 3)), (Shape{10, 2}));
  expect_compile_error([&] { b.slice(s, 0, 0, 4, 0); }, {"slice", "step"});
  expect_compile_error([&] { b.slice(s, 2, 0, 4); }, {"slice", "axis"});
}

TEST(GraphBuilderTest, Reductions) {
  GraphBuilder b("red");
  const ValueId x = b.input("x", DType::F32, {2, 3, 4});
  auto reduce = [&](OpKind k, std::vector<int64_t> axes, int64_t keepdim) {
    return b.shape(b.op(k, {x}, {{"axes", std::move(axes)}, {"keepdim", keepdim}}));
  };
  EXPECT_EQ(reduce(OpKind::ReduceSum, {1}, 0), (Shape{2, 4}));
  EXPECT_EQ(reduce(OpKind::ReduceMean, {1}, 1), (Shape{2, 1, 4}));
  EXPECT_EQ(reduce(OpKind::ReduceMax, {-1, 0}, 0), (Shape{3}));
  EXPECT_EQ(reduce(OpKind::ReduceSum, {0, 1, 2}, 1), (Shape{1, 1, 1}));
  EXPECT_EQ(reduce(OpKind::ReduceSum, {0, 1, 2}, 0), (Shape{}));
  expect_compile_error([&] { reduce(OpKind::ReduceSum, {1, -2}, 0); }, {"reduce_sum", "twice"});
  expect_compile_error([&] { reduce(OpKind::ReduceMean, {3}, 0); }, {"reduce_mean", "out of range"});
  expect_compile_error([&] { b.op(OpKind::ReduceMax, {x}); }, {"reduce_max", "axes"});
}

TEST(GraphBuilderTest, ElementwiseNormsAndMisc) {
  GraphBuilder b("misc");
  const ValueId x = b.input("x", DType::F32, {3, 1});
  const ValueId v = b.input("v", DType::F32, {4});
  EXPECT_EQ(b.shape(b.add(x, v)), (Shape{3, 4}));
  EXPECT_EQ(b.shape(b.op(OpKind::Maximum, {v, x})), (Shape{3, 4}));
  expect_compile_error([&] { b.add(v, b.input("v5", DType::F32, {5})); }, {"add", "broadcast"});
  expect_compile_error([&] { b.mul(v, b.input("vi", DType::I64, {4})); }, {"mul", "dtypes differ"});
  expect_compile_error([&] { b.relu(b.input("ints", DType::I32, {4})); }, {"relu", "floating"});
  expect_compile_error([&] { b.op(OpKind::Gelu, {v}, {{"approximate", std::string("fast")}}); }, {"gelu"});
  EXPECT_EQ(b.shape(b.op(OpKind::Gelu, {v}, {{"approximate", std::string("tanh")}})), (Shape{4}));
  expect_compile_error([&] { b.softmax(v, 1); }, {"softmax", "out of range"});
  expect_compile_error([&] { b.op(OpKind::Add, {v}); }, {"add", "number of operands"});

  const ValueId img = b.input("img", DType::F32, {2, 3, 5, 5});
  const ValueId c = b.weight("c", {3}, Initializer::constant(1));
  EXPECT_EQ(b.shape(b.op(OpKind::BatchNorm, {img, c, c, c, c}, {{"eps", 1e-5}})), (Shape{2, 3, 5, 5}));
  expect_compile_error([&] { b.op(OpKind::BatchNorm, {img, c, c, c, v}); }, {"batch_norm", "[C]"});
  const ValueId g = b.weight("g", {5}, Initializer::constant(1));
  EXPECT_EQ(b.shape(b.op(OpKind::LayerNorm, {img, g, g})), (Shape{2, 3, 5, 5}));
  expect_compile_error([&] { b.op(OpKind::LayerNorm, {img, c, c}); }, {"layer_norm", "gamma"});

  EXPECT_EQ(b.type(b.op(OpKind::Cast, {v}, {{"dtype", std::string("bf16")}})), (TensorType{DType::BF16, {4}}));
  EXPECT_EQ(b.type(b.constant(2.0, {2, 2}, DType::I32)), (TensorType{DType::I32, {2, 2}}));
  EXPECT_EQ(b.type(b.constant(2.0)), (TensorType{DType::F32, {}}));
}

TEST(GraphBuilderTest, BadDtypeAttributeIsACompileErrorNamingTheOp) {
  GraphBuilder b("cast");
  const ValueId v = b.input("v", DType::F32, {4});
  expect_compile_error([&] { b.op(OpKind::Cast, {v}, {{"dtype", std::string("f33")}}); }, {"cast", "f33"});
  expect_compile_error(
      [&] {
        b.op(OpKind::Constant, {}, {{"value", 1.0}, {"dtype", std::string("float")}});
      },
      {"constant", "float"});
  expect_compile_error([&] { b.op(OpKind::Cast, {v}); }, {"cast", "dtype"});
}

TEST(GraphBuilderTest, ConstantRejectsNegativeDims) {
  GraphBuilder b("c");
  expect_compile_error([&] { b.constant(1.0, {2, -3}); }, {"constant", "[2,-3]"});
}

TEST(GraphBuilderTest, HugeSizesAreCompileErrorsNotOverflow) {
  GraphBuilder b("huge");
  const int64_t max = std::numeric_limits<int64_t>::max();
  const ValueId x = b.input("x", DType::F32, {1, 4, max, 8});
  expect_compile_error(
      [&] {
        b.op(OpKind::MaxPool2d, {x}, {{"kernel", Ints{1, 1}}, {"padding", Ints{max / 2 + 1, 0}}});
      },
      {"max_pool2d", "overflows"});
  const ValueId w = b.weight("w", {4, max / 2 + 1, 1, 1}, Initializer::constant(1));
  expect_compile_error([&] { b.op(OpKind::Conv2d, {x, w}, {{"groups", int64_t{4}}}); }, {"conv2d", "overflows"});
  const ValueId w2 = b.weight("w2", {4, 2, 3, 3}, Initializer::constant(1));
  expect_compile_error(
      [&] {
        b.op(OpKind::Conv2d, {x, w2}, {{"dilation", Ints{max, 1}}, {"groups", int64_t{2}}});
      },
      {"conv2d", "overflows"});
  expect_compile_error([&] { b.concat({x, x}, 2); }, {"concat", "overflows"});
  expect_compile_error([&] { b.op(OpKind::Reshape, {x}, {{"shape", Ints{4, 8}}}); }, {"reshape", "overflows"});
  EXPECT_EQ(b.shape(b.slice(x, 2, 0, max, max)), (Shape{1, 4, 1, 8}));
}

TEST(GraphBuilderTest, ParamsAndOutputs) {
  GraphBuilder b("p");
  const ValueId x = b.input("x", DType::F32, {2});
  EXPECT_THROW(b.input("x", DType::F32, {2}), CompileError);
  EXPECT_THROW(b.input("", DType::F32, {2}), CompileError);
  b.output("y", b.relu(x));
  EXPECT_THROW(b.output("y", x), CompileError);
  const Graph g = b.finish();
  EXPECT_EQ(g.name, "p");
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(describe_op(g, 0), "op #0 relu");
}

// A tiny graph built by hand (no builder): relu(x) -> out.
Graph hand_graph() {
  Graph g;
  g.name = "hand";
  const ValueId x = g.add_value({DType::F32, {2}}, "x");
  g.params.push_back({"x", ParamKind::Input, x, std::nullopt, {}, ""});
  const ValueId y = g.add_value({DType::F32, {2}});
  g.ops.push_back({OpKind::Relu, {x}, y, {}});
  g.outputs.push_back({"out", y});
  return g;
}

TEST(VerifyGraphTest, AcceptsAWellFormedGraph) { EXPECT_NO_THROW(verify_graph(hand_graph())); }

TEST(VerifyGraphTest, OperandUsedBeforeDefinition) {
  Graph g = hand_graph();
  // op #0 now reads the result of op #1, which comes after it.
  const ValueId late = g.add_value({DType::F32, {2}});
  g.ops[0].inputs = {late};
  const ValueId z = g.add_value({DType::F32, {2}});
  g.ops.push_back({OpKind::Neg, {g.params[0].value}, late, {}});
  g.outputs[0].value = z;
  expect_compile_error([&] { verify_graph(g); }, {"op #0 relu", "not defined before use"});
}

TEST(VerifyGraphTest, CatchesStructuralErrors) {
  Graph g = hand_graph();
  g.ops[0].inputs = {99};
  expect_compile_error([&] { verify_graph(g); }, {"op #0 relu", "not defined"});

  g = hand_graph();
  g.values[static_cast<size_t>(g.ops[0].output)].type = {DType::F32, {3}};
  expect_compile_error([&] { verify_graph(g); }, {"op #0 relu", "declared result type f32[3]"});

  g = hand_graph();
  g.ops.push_back(g.ops[0]);  // same result value defined twice
  expect_compile_error([&] { verify_graph(g); }, {"op #1 relu", "defined twice"});

  g = hand_graph();
  g.outputs.clear();
  expect_compile_error([&] { verify_graph(g); }, {"no outputs"});

  g = hand_graph();
  g.outputs[0].value = 7;
  expect_compile_error([&] { verify_graph(g); }, {"output 'out'"});

  g = hand_graph();
  g.ops[0].kind = OpKind::Add;
  expect_compile_error([&] { verify_graph(g); }, {"op #0 add", "operands"});
}

TEST(VerifyGraphTest, WeightWithoutDataOrInitializerVerifiesButCannotMaterialize) {
  // The IR text form of a weight whose data lives outside the text (`= data`):
  // structurally valid, but it must get data before execution.
  Graph g = hand_graph();
  const ValueId w = g.add_value({DType::F32, {2}}, "w");
  g.params.push_back({"w", ParamKind::Weight, w, std::nullopt, {}, ""});
  EXPECT_NO_THROW(verify_graph(g));
  EXPECT_THROW(materialize(g.params[1], g.type(w)), Error);
  g.params[1].data = Tensor::from_f32({3}, {1, 2, 3});
  expect_compile_error([&] { verify_graph(g); }, {"weight 'w'", "data shape [3]"});
}

TEST(GraphTest, MaterializeWeights) {
  GraphBuilder b("m");
  const ValueId x = b.input("x", DType::F32, {4});
  const ValueId w = b.weight("w", {4}, Initializer::constant(2.5), DType::BF16);
  const ValueId n = b.weight("n", {1000}, Initializer::normal(0, 1, 99));
  const ValueId d = b.weight("d", Tensor::from_f32({4}, {1, 2, 3, 4}));
  b.output("y", b.add(x, d));
  b.output("w", w);
  b.output("n", n);
  Graph g = b.finish();
  EXPECT_EQ(g.weight_count(), 1008);
  EXPECT_FALSE(g.params[1].data.defined());  // lazy until materialized
  g.materialize_weights();
  const Param* pw = g.find_param("w");
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(pw->data.dtype(), DType::BF16);
  EXPECT_EQ(pw->data.to_f32_vector(), (std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f}));
  EXPECT_EQ(g.find_param("d")->data.to_f32_vector(), (std::vector<float>{1, 2, 3, 4}));
  const Tensor again = materialize(*g.find_param("n"), g.type(n));
  EXPECT_EQ(again.raw_data(), g.find_param("n")->data.raw_data());  // idempotent: reuses the data
  Param fresh = *g.find_param("n");
  fresh.data = Tensor();
  EXPECT_EQ(materialize(fresh, g.type(n)).to_f32_vector(), g.find_param("n")->data.to_f32_vector());
  EXPECT_EQ(g.find_param("nope"), nullptr);
}

}  // namespace
}  // namespace meshtest
