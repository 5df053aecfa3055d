// Reference executor: reshape, transpose, concat, slice, embedding (incl. the
// out-of-range error) and reductions against hand-computed values.
#include <cmath>

#include "core/error.h"
#include "reference_test_util.h"

namespace meshtest::runtime::testing {
namespace {

std::vector<int64_t> i64_values(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
}

TEST(ReferenceShape, Reshape) {
  expect_f32(run_op(OpKind::Reshape, {iota({2, 3})}, {{"shape", std::vector<int64_t>{3, 1, 2}}}), {3, 1, 2},
             {0, 1, 2, 3, 4, 5});
}

TEST(ReferenceShape, Transpose) {
  expect_f32(run_op(OpKind::Transpose, {iota({2, 3}, 1)}, {{"perm", std::vector<int64_t>{1, 0}}}), {3, 2},
             {1, 4, 2, 5, 3, 6});
  // x[i][j][k] = 6i + 3j + k, perm [2,0,1]: out[k][i][j] = x[i][j][k].
  expect_f32(run_op(OpKind::Transpose, {iota({2, 2, 3})}, {{"perm", std::vector<int64_t>{2, 0, 1}}}), {3, 2, 2},
             {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  // Attention-style [1,2,3,2] perm [0,2,1,3]: x[0][h][s][d] = 6h + 2s + d.
  expect_f32(run_op(OpKind::Transpose, {iota({1, 2, 3, 2})}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
             {1, 3, 2, 2}, {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11});
}

TEST(ReferenceShape, LargeTransposeMatchesIndexFormula) {
  const Shape shape{4, 64, 33, 17};
  const Tensor x = iota(shape);
  const Tensor out = run_op(OpKind::Transpose, {x}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
  ASSERT_EQ(out.shape(), (Shape{4, 33, 17, 64}));
  const float* p = out.data<float>();
  int64_t at = 0;
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t c = 0; c < 33; ++c)
      for (int64_t d = 0; d < 17; ++d)
        for (int64_t b = 0; b < 64; ++b) ASSERT_EQ(p[at++], static_cast<float>(((a * 64 + b) * 33 + c) * 17 + d));
}

TEST(ReferenceShape, ConcatAnyAxis) {
  const Tensor a = iota({2, 2});      // [[0,1],[2,3]]
  const Tensor b = iota({2, 1}, 10);  // [[10],[11]]
  const Tensor c = iota({1, 2}, 20);  // [[20,21]]
  expect_f32(run_op(OpKind::Concat, {a, c}, {{"axis", int64_t{0}}}), {3, 2}, {0, 1, 2, 3, 20, 21});
  expect_f32(run_op(OpKind::Concat, {a, b, a}, {{"axis", int64_t{1}}}), {2, 5}, {0, 1, 10, 0, 1, 2, 3, 11, 2, 3});
  expect_f32(run_op(OpKind::Concat, {b, a}, {{"axis", int64_t{-1}}}), {2, 3}, {10, 0, 1, 11, 2, 3});
  const Tensor ints =
      run_op(OpKind::Concat, {Tensor::from_i64({1, 2}, {1, 2}), Tensor::from_i64({1, 1}, {3})}, {{"axis", int64_t{1}}});
  ASSERT_EQ(ints.dtype(), DType::I64);
  EXPECT_EQ(i64_values(ints), (std::vector<int64_t>{1, 2, 3}));
}

Attrs slice_attrs(int64_t axis, int64_t start, int64_t end, int64_t step = 1) {
  return {{"axis", axis}, {"start", start}, {"end", end}, {"step", step}};
}

TEST(ReferenceShape, SlicePythonSemantics) {
  const Tensor x = iota({6});  // 0..5
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, 1, 5, 2)), {2}, {1, 3});
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, -2, 6)), {2}, {4, 5});
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, 0, -1)), {5}, {0, 1, 2, 3, 4});
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, -100, 100, 3)), {2}, {0, 3});
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, 10, 20)), {0}, {});
  expect_f32(run_op(OpKind::Slice, {x}, slice_attrs(0, 4, 2)), {0}, {});
  // [2,4] rows 0..7, columns 1..2 (axis -1).
  expect_f32(run_op(OpKind::Slice, {iota({2, 4})}, slice_attrs(-1, 1, 3)), {2, 2}, {1, 2, 5, 6});
  expect_f32(run_op(OpKind::Slice, {iota({3, 2})}, slice_attrs(0, 1, 3)), {2, 2}, {2, 3, 4, 5});
}

TEST(ReferenceEmbedding, GathersRowsForI64AndI32Ids) {
  const Tensor table = Tensor::from_f32({4, 2}, {0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f});
  const Tensor ids = Tensor::from_i64({2, 2}, {3, 0, 1, 1});
  expect_f32(run_op(OpKind::Embedding, {ids, table}), {2, 2, 2}, {3, 3.5f, 0, 0.5f, 1, 1.5f, 1, 1.5f});
  expect_f32(run_op(OpKind::Embedding, {ids.to(DType::I32), table}), {2, 2, 2}, {3, 3.5f, 0, 0.5f, 1, 1.5f, 1, 1.5f});
}

// One op alone (the per-op check's way in): a bf16 table is read as it is
// held, no f32 copy of it, and the gathered rows come back as f32.
TEST(ReferenceEmbedding, ABf16TableAloneGivesF32Rows) {
  const Tensor table = Tensor::from_f32({4, 2}, {0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f}).to(DType::BF16);
  const Tensor ids = Tensor::from_i64({2, 2}, {3, 0, 1, 1});
  EXPECT_TRUE(reads_operand_as_held(OpKind::Embedding, 1, DType::BF16));
  expect_f32(run_reference_op(Op{OpKind::Embedding, {}, kNoValue, {}}, {ids, table}), {2, 2, 2},
             {3, 3.5f, 0, 0.5f, 1, 1.5f, 1, 1.5f});
}

TEST(ReferenceEmbedding, OutOfRangeIdIsARuntimeErrorNamingTheOp) {
  // Three ops before the lookup, so it is op #3; a 30522-row lazy table.
  GraphBuilder b("bert_embeddings");
  const ValueId ids = b.input("input_ids", DType::I64, {1, 3});
  const ValueId x = b.input("x", DType::F32, {2});
  const ValueId t = b.relu(b.relu(b.relu(x)));
  const ValueId table = b.weight("word_embeddings", {30522, 4}, Initializer::constant(0.5));
  b.output("t", t);
  b.output("emb", b.op(OpKind::Embedding, {ids, table}));
  const Graph g = b.finish();
  const NamedTensors feeds{{"input_ids", Tensor::from_i64({1, 3}, {101, 40000, 102})},
                           {"x", Tensor::from_f32({2}, {1, 2})}};
  try {
    run_reference(g, feeds);
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "op #3 embedding: id 40000 out of range [0, 30522)");
  }
  const NamedTensors negative{{"input_ids", Tensor::from_i64({1, 3}, {-1, 0, 0})},
                              {"x", Tensor::from_f32({2}, {1, 2})}};
  EXPECT_THROW(
      {
        try {
          run_reference(g, negative);
        } catch (const RuntimeError& e) {
          EXPECT_STREQ(e.what(), "op #3 embedding: id -1 out of range [0, 30522)");
          throw;
        }
      },
      RuntimeError);
}

Attrs reduce_attrs(std::vector<int64_t> axes, int64_t keepdim) {
  return {{"axes", std::move(axes)}, {"keepdim", keepdim}};
}

TEST(ReferenceReduce, SumMeanMaxOverAxes) {
  const Tensor x = iota({2, 3}, 1);  // [[1,2,3],[4,5,6]]
  expect_f32(run_op(OpKind::ReduceSum, {x}, reduce_attrs({1}, 0)), {2}, {6, 15});
  expect_f32(run_op(OpKind::ReduceSum, {x}, reduce_attrs({-1}, 1)), {2, 1}, {6, 15});
  expect_f32(run_op(OpKind::ReduceSum, {x}, reduce_attrs({0}, 0)), {3}, {5, 7, 9});
  expect_f32(run_op(OpKind::ReduceMean, {x}, reduce_attrs({0, 1}, 0)), {}, {3.5f});
  expect_f32(run_op(OpKind::ReduceMean, {x}, reduce_attrs({1, 0}, 1)), {1, 1}, {3.5f});
  expect_f32(run_op(OpKind::ReduceMax, {x}, reduce_attrs({1}, 0)), {2}, {3, 6});
  expect_f32(run_op(OpKind::ReduceMax, {x}, reduce_attrs({0}, 1)), {1, 3}, {4, 5, 6});
  // x[i][j][k] = 6i + 2j + k over axes {0,2}: sum = 12 + 8j + 2 -> [14, 22, 30].
  expect_f32(run_op(OpKind::ReduceSum, {iota({2, 3, 2})}, reduce_attrs({0, 2}, 0)), {3}, {14, 22, 30});
  expect_f32(run_op(OpKind::ReduceMax, {iota({2, 3, 2})}, reduce_attrs({0, 2}, 1)), {1, 3, 1}, {7, 9, 11});
  // No axes: identity.
  expect_f32(run_op(OpKind::ReduceSum, {x}, reduce_attrs({}, 0)), {2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(ReferenceReduce, LargeSumMatchesLoops) {
  const Tensor x = iota({37, 129, 23});
  const Tensor out = run_op(OpKind::ReduceSum, {x}, reduce_attrs({0, 2}, 0));
  ASSERT_EQ(out.shape(), (Shape{129}));
  for (int64_t j = 0; j < 129; ++j) {
    double s = 0;
    for (int64_t i = 0; i < 37; ++i)
      for (int64_t k = 0; k < 23; ++k) s += static_cast<double>((i * 129 + j) * 23 + k);
    ASSERT_NEAR(out.data<float>()[j], s, 1e-6 * s);
  }
}

TEST(ReferenceReduce, IntegerReductionsKeepDtype) {
  const Tensor x = Tensor::from_i64({2, 3}, {1, -2, 3, 4, 5, -6});
  const Tensor s = run_op(OpKind::ReduceSum, {x}, reduce_attrs({1}, 0));
  ASSERT_EQ(s.dtype(), DType::I64);
  EXPECT_EQ(i64_values(s), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(i64_values(run_op(OpKind::ReduceMax, {x}, reduce_attrs({0}, 0))), (std::vector<int64_t>{4, 5, 3}));
  // Integer mean truncates toward zero: 2/3 -> 0, 3/3 -> 1.
  EXPECT_EQ(i64_values(run_op(OpKind::ReduceMean, {x}, reduce_attrs({1}, 0))), (std::vector<int64_t>{0, 1}));
}

TEST(ReferenceReduce, MaxPropagatesNaN) {
  const Tensor out = run_op(OpKind::ReduceMax, {Tensor::from_f32({3}, {1, std::nanf(""), 2})}, reduce_attrs({0}, 0));
  EXPECT_TRUE(std::isnan(out.data<float>()[0]));
}

}  // namespace
}  // namespace meshtest::runtime::testing
