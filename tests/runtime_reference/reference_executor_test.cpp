// Reference executor as a whole: a small MLP built with GraphBuilder end to
// end, input binding and its errors, weight materialization and widening,
// integer outputs, error wrapping and value lifetimes.
#include "core/error.h"
#include "reference_test_util.h"

namespace meshtest::runtime::testing {
namespace {

// x[2,3] -> linear(w1[4,3], b1) -> relu -> linear(w2[2,4], b2) -> logits;
// hidden (the relu) is an output too, and feeds a reduce. Weights are stored
// in `weight_dtype`; when that differs from `act_dtype` a cast feeds them in.
Graph mlp_graph(DType weight_dtype = DType::F32, DType act_dtype = DType::F32) {
  GraphBuilder b("mlp");
  const ValueId x = b.input("x", act_dtype, {2, 3});
  auto weight = [&](const std::string& name, const Tensor& data) {
    const ValueId w = b.weight(name, data.to(weight_dtype));
    if (weight_dtype == act_dtype) return w;
    return b.op(OpKind::Cast, {w}, {{"dtype", std::string(dtype_name(act_dtype))}});
  };
  const ValueId w1 = weight("w1", Tensor::from_f32({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, -1, -1, -1}));
  const ValueId b1 = weight("b1", Tensor::from_f32({4}, {0, 0, 0, 1}));
  const ValueId w2 = weight("w2", Tensor::from_f32({2, 4}, {1, 1, 1, 1, 1, -1, 0, 2}));
  const ValueId b2 = weight("b2", Tensor::from_f32({2}, {0.5f, 0}));
  const ValueId hidden = b.relu(b.linear(x, w1, b1));
  const ValueId logits = b.linear(hidden, w2, b2);
  const ValueId total = b.op(OpKind::ReduceSum, {hidden}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{0}}});
  b.output("logits", logits);
  b.output("hidden", hidden);
  b.output("total", total);
  return b.finish();
}

// Hand computation for x = [[1,2,3],[-1,0,1]]:
//   x @ w1^T + b1 = [[1,2,3,-6+1], [-1,0,1,0+1]] -> relu [[1,2,3,0],[0,0,1,1]]
//   logits = [[1+2+3+0+0.5, 1-2+0+0], [0+0+1+1+0.5, 0-0+0+2]] = [[6.5,-1],[2.5,2]]
const std::vector<float> kX{1, 2, 3, -1, 0, 1};

TEST(ReferenceExecutor, MlpEndToEnd) {
  const std::vector<Tensor> out = run_reference(mlp_graph(), {{"x", Tensor::from_f32({2, 3}, kX)}});
  ASSERT_EQ(out.size(), 3u);
  expect_f32(out[0], {2, 2}, {6.5f, -1, 2.5f, 2});
  expect_f32(out[1], {2, 4}, {1, 2, 3, 0, 0, 0, 1, 1});
  expect_f32(out[2], {2}, {6, 2});
}

TEST(ReferenceExecutor, Bf16AndBfp8WeightsAreWidened) {
  // Every weight value above is exact in bf16 and in bfp8_b blocks.
  const std::vector<Tensor> bf16 =
      run_reference(mlp_graph(DType::BF16, DType::BF16), {{"x", Tensor::from_f32({2, 3}, kX).to(DType::BF16)}});
  expect_f32(bf16[0], {2, 2}, {6.5f, -1, 2.5f, 2});
  const std::vector<Tensor> bfp8 = run_reference(mlp_graph(DType::BFP8_B), {{"x", Tensor::from_f32({2, 3}, kX)}});
  expect_f32(bfp8[0], {2, 2}, {6.5f, -1, 2.5f, 2});
}

TEST(ReferenceExecutor, Bf16InputIsWidenedAndOutputIsF32) {
  GraphBuilder b("bf16_io");
  const ValueId x = b.input("x", DType::BF16, {2});
  b.output("y", b.mul(x, x));
  b.output("x", x);
  const std::vector<Tensor> out = run_reference(b.finish(), {{"x", Tensor::from_f32({2}, {1.5f, -3}).to(DType::BF16)}});
  expect_f32(out[0], {2}, {2.25f, 9});
  expect_f32(out[1], {2}, {1.5f, -3});
  // An f32 tensor for a bf16 input is accepted as is (no rounding): 1 + 2^-8.
  const std::vector<Tensor> exact = run_reference(
      [] {
        GraphBuilder g("bf16_in");
        g.output("x", g.op(OpKind::Neg, {g.input("x", DType::BF16, {1})}));
        return g.finish();
      }(),
      {{"x", Tensor::from_f32({1}, {1.00390625f})}});
  expect_f32(exact[0], {1}, {-1.00390625f}, 0);
}

TEST(ReferenceExecutor, LazyWeightsAreMaterialized) {
  GraphBuilder b("lazy");
  const ValueId x = b.input("x", DType::BF16, {1, 2});
  const ValueId w = b.weight("w", {3, 2}, Initializer::constant(0.5), DType::BF16);
  b.output("y", b.linear(x, w));
  const std::vector<Tensor> out = run_reference(b.finish(), {{"x", Tensor::from_f32({1, 2}, {2, 4})}});
  expect_f32(out[0], {1, 3}, {3, 3, 3});
}

TEST(ReferenceExecutor, IntegerOutputsKeepTheirDtype) {
  GraphBuilder b("ints");
  const ValueId ids = b.input("ids", DType::I64, {2, 2});
  b.output("sum", b.op(OpKind::ReduceSum, {ids}, {{"axes", std::vector<int64_t>{0}}, {"keepdim", int64_t{0}}}));
  b.output("as_i32", b.op(OpKind::Cast, {ids}, {{"dtype", std::string("i32")}}));
  b.output("as_f32", b.op(OpKind::Cast, {ids}, {{"dtype", std::string("f32")}}));
  const std::vector<Tensor> out = run_reference(b.finish(), {{"ids", Tensor::from_i64({2, 2}, {1, 2, 30, 40})}});
  ASSERT_EQ(out[0].dtype(), DType::I64);
  EXPECT_EQ(out[0].data<int64_t>()[0], 31);
  EXPECT_EQ(out[0].data<int64_t>()[1], 42);
  ASSERT_EQ(out[1].dtype(), DType::I32);
  EXPECT_EQ(out[1].data<int32_t>()[3], 40);
  expect_f32(out[2], {2, 2}, {1, 2, 30, 40});
}

TEST(ReferenceExecutor, IntegerInputOfAnotherIntegerDtypeIsConverted) {
  GraphBuilder b("ids");
  const ValueId ids = b.input("ids", DType::I64, {2});
  b.output("emb", b.op(OpKind::Embedding, {ids, b.weight("table", Tensor::from_f32({2, 1}, {7, 8}))}));
  const std::vector<Tensor> out = run_reference(b.finish(), {{"ids", Tensor::from_i64({2}, {1, 0}).to(DType::I32)}});
  expect_f32(out[0], {2, 1}, {8, 7});
}

TEST(ReferenceExecutor, MissingInputIsNamed) {
  try {
    run_reference(mlp_graph(), {{"y", Tensor::from_f32({2, 3}, kX)}});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "missing input 'x' (f32[2,3])");
  }
}

TEST(ReferenceExecutor, InputShapeMismatchNamesBothShapes) {
  try {
    run_reference(mlp_graph(), {{"x", Tensor::from_f32({3, 2}, kX)}});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "input 'x' has shape [3,2], expected [2,3]");
  }
}

TEST(ReferenceExecutor, InputDtypeKindMismatchIsAnError) {
  EXPECT_THROW(run_reference(mlp_graph(), {{"x", Tensor::from_i64({2, 3}, {1, 2, 3, 4, 5, 6})}}), RuntimeError);
}

TEST(ReferenceExecutor, MalformedGraphFailsNamingTheOp) {
  Graph g = mlp_graph();
  g.values[static_cast<size_t>(g.ops[1].output)].type.shape = {4, 2};  // relu declared with a wrong shape
  try {
    run_reference(g, {{"x", Tensor::from_f32({2, 3}, kX)}});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("op #1 relu: ", 0), 0u) << e.what();
  }
}

TEST(ReferenceExecutor, ValuesLiveUntilTheirLastUse) {
  // x is read by the first and the last op; intermediates in between die early.
  GraphBuilder b("lifetimes");
  const ValueId x = b.input("x", DType::F32, {3});
  ValueId y = b.op(OpKind::Exp, {x});
  for (int i = 0; i < 5; ++i) y = b.add(y, b.constant(1.0));
  const ValueId z = b.sub(y, x);
  b.output("z", z);
  b.output("z_again", z);
  const std::vector<Tensor> out = run_reference(b.finish(), {{"x", Tensor::from_f32({3}, {0, 1, 2})}});
  // exp(x) + 5 - x
  expect_f32(out[0], {3}, {6, 2.7182817f + 4, 7.3890561f + 3});
  expect_f32(out[1], {3}, {6, 2.7182817f + 4, 7.3890561f + 3});
}

TEST(ReferenceExecutor, CallerInputsAreNotModified) {
  const Tensor x = Tensor::from_f32({2, 3}, kX);
  run_reference(mlp_graph(), {{"x", x}});
  expect_f32(x, {2, 3}, kX, 0);
}

}  // namespace
}  // namespace meshtest::runtime::testing
