// Reference executor: unary math, numpy-broadcasting binary ops, cast and
// constant against hand-computed values.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "reference_test_util.h"

namespace meshtest::runtime::testing {
namespace {

const float kLn2 = std::log(2.0f);
const float kLn3 = std::log(3.0f);

TEST(ReferenceUnary, ReluNegAndSimpleMath) {
  expect_f32(run_op(OpKind::Relu, {Tensor::from_f32({4}, {-2, -0.5f, 0, 3})}), {4}, {0, 0, 0, 3});
  expect_f32(run_op(OpKind::Neg, {Tensor::from_f32({2}, {1.5f, -2})}), {2}, {-1.5f, 2});
  expect_f32(run_op(OpKind::Exp, {Tensor::from_f32({2}, {0, 1})}), {2}, {1, 2.7182817f});
  expect_f32(run_op(OpKind::Log, {Tensor::from_f32({2}, {1, 2.7182817f})}), {2}, {0, 1});
  expect_f32(run_op(OpKind::Sqrt, {Tensor::from_f32({2}, {4, 2})}), {2}, {2, 1.4142135f});
  expect_f32(run_op(OpKind::Rsqrt, {Tensor::from_f32({2}, {4, 0.25f})}), {2}, {0.5f, 2});
  // tanh(ln 2) = (4 - 1) / (4 + 1)
  expect_f32(run_op(OpKind::Tanh, {Tensor::from_f32({2}, {0, kLn2})}), {2}, {0, 0.6f});
  // sigmoid(ln 3) = 3 / 4; silu(ln 3) = ln 3 * 3 / 4; a large negative input gives 0, not NaN.
  expect_f32(run_op(OpKind::Sigmoid, {Tensor::from_f32({3}, {0, kLn3, -100})}), {3}, {0.5f, 0.75f, 0});
  expect_f32(run_op(OpKind::Silu, {Tensor::from_f32({2}, {0, kLn3})}), {2}, {0, kLn3 * 0.75f});
  expect_f32(run_op(OpKind::Sin, {Tensor::from_f32({2}, {0, 1.5707964f})}), {2}, {0, 1});
  expect_f32(run_op(OpKind::Cos, {Tensor::from_f32({2}, {0, 3.1415927f})}), {2}, {1, -1});
  // erf(0.5), erf(-1) from tables.
  expect_f32(run_op(OpKind::Erf, {Tensor::from_f32({3}, {0, 0.5f, -1})}), {3}, {0, 0.5204999f, -0.8427008f});
}

TEST(ReferenceUnary, ReluKeepsNaN) {
  const Tensor out = run_op(OpKind::Relu, {Tensor::from_f32({1}, {std::nanf("")})});
  EXPECT_TRUE(std::isnan(out.data<float>()[0]));
}

TEST(ReferenceUnary, GeluExactAndTanh) {
  const Tensor x = Tensor::from_f32({5}, {-1, 0, 1, 2, -3});
  // Exact: x * Phi(x), Phi from the normal table (Phi(1) = 0.8413447, Phi(2) = 0.9772499,
  // Phi(-3) = 0.0013499). Values cross-checked once with torch.nn.functional.gelu.
  expect_f32(run_op(OpKind::Gelu, {x}), {5}, {-0.15865529f, 0, 0.84134471f, 1.95449996f, -0.00404987f});
  expect_f32(run_op(OpKind::Gelu, {x}, {{"approximate", std::string("none")}}), {5},
             {-0.15865529f, 0, 0.84134471f, 1.95449996f, -0.00404987f});
  // Tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); pasted from
  // torch.nn.functional.gelu(x, approximate='tanh').
  expect_f32(run_op(OpKind::Gelu, {x}, {{"approximate", std::string("tanh")}}), {5},
             {-0.15880799f, 0, 0.84119201f, 1.95459771f, -0.00363743f});
}

TEST(ReferenceBinary, BroadcastAdd213With43) {
  // a[i][0][k] + b[j][k] -> out[i][j][k], shape [2,4,3].
  const Tensor a = Tensor::from_f32({2, 1, 3}, {0, 1, 2, 10, 20, 30});
  const Tensor b = Tensor::from_f32({4, 3}, {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200});
  expect_f32(run_op(OpKind::Add, {a, b}), {2, 4, 3}, {100, 201, 302, 400, 501, 602, 700, 801, 902, 1000, 1101, 1202,
                                                      110, 220, 330, 410, 520, 630, 710, 820, 930, 1010, 1120, 1230});
}

TEST(ReferenceBinary, SubMulDivMaximumWithBroadcast) {
  // [2,2] - [1]
  expect_f32(run_op(OpKind::Sub, {Tensor::from_f32({2, 2}, {5, 6, 7, 8}), Tensor::from_f32({1}, {5})}), {2, 2},
             {0, 1, 2, 3});
  // [3,1] * [1,2]: outer product.
  expect_f32(run_op(OpKind::Mul, {Tensor::from_f32({3, 1}, {1, 2, 3}), Tensor::from_f32({1, 2}, {10, -1})}), {3, 2},
             {10, -1, 20, -2, 30, -3});
  // scalar [] / [2,2] (lhs broadcast).
  expect_f32(run_op(OpKind::Div, {Tensor::scalar_f32(6), Tensor::from_f32({2, 2}, {1, 2, 3, -4})}), {2, 2},
             {6, 3, 2, -1.5f});
  // [2,3] max [3]
  expect_f32(run_op(OpKind::Maximum, {Tensor::from_f32({2, 3}, {1, 5, -1, 7, 0, 2}), Tensor::from_f32({3}, {2, 2, 2})}),
             {2, 3}, {2, 5, 2, 7, 2, 2});
}

TEST(ReferenceBinary, MaximumPropagatesNaN) {
  const Tensor out =
      run_op(OpKind::Maximum, {Tensor::from_f32({2}, {std::nanf(""), 1}), Tensor::from_f32({2}, {0, std::nanf("")})});
  EXPECT_TRUE(std::isnan(out.data<float>()[0]));
  EXPECT_TRUE(std::isnan(out.data<float>()[1]));
}

TEST(ReferenceBinary, LargeBroadcastMatchesIndexFormula) {
  // Big enough to be split into many tasks whose ranges start mid-row.
  const int64_t I = 33, J = 50, K = 301;
  std::vector<float> av(static_cast<size_t>(I * K)), bv(static_cast<size_t>(J * K));
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i % 97) * 0.5f;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 89) * -0.25f;
  const Tensor out = run_op(OpKind::Sub, {Tensor::from_f32({I, 1, K}, av), Tensor::from_f32({J, K}, bv)});
  ASSERT_EQ(out.shape(), (Shape{I, J, K}));
  const float* p = out.data<float>();
  for (int64_t i = 0; i < I; ++i) {
    for (int64_t j = 0; j < J; ++j) {
      for (int64_t k = 0; k < K; ++k) {
        ASSERT_EQ(p[(i * J + j) * K + k], av[static_cast<size_t>(i * K + k)] - bv[static_cast<size_t>(j * K + k)]);
      }
    }
  }
  // Column broadcast against row broadcast: [N,1] + [1,M].
  std::vector<float> col(700), row(90);
  for (size_t i = 0; i < col.size(); ++i) col[i] = static_cast<float>(i);
  for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<float>(i) * 1000.0f;
  const Tensor sum = run_op(OpKind::Add, {Tensor::from_f32({700, 1}, col), Tensor::from_f32({1, 90}, row)});
  for (int64_t i = 0; i < 700; ++i) {
    for (int64_t j = 0; j < 90; ++j) ASSERT_EQ(sum.data<float>()[i * 90 + j], static_cast<float>(i + j * 1000));
  }
}

TEST(ReferenceBinary, IntegerOpsKeepDtypeAndFloorDivide) {
  const Tensor a = Tensor::from_i64({4}, {7, -7, 7, -7});
  const Tensor b = Tensor::from_i64({4}, {2, 2, -2, -2});
  const Tensor q = run_op(OpKind::Div, {a, b});
  ASSERT_EQ(q.dtype(), DType::I64);
  EXPECT_EQ(std::vector<int64_t>(q.data<int64_t>(), q.data<int64_t>() + 4), (std::vector<int64_t>{3, -4, -4, 3}));
  const Tensor s = run_op(OpKind::Add, {a, Tensor::from_i64({1}, {100})});
  EXPECT_EQ(std::vector<int64_t>(s.data<int64_t>(), s.data<int64_t>() + 4), (std::vector<int64_t>{107, 93, 107, 93}));
  const Tensor a32 = a.to(DType::I32);
  const Tensor m = run_op(OpKind::Maximum, {a32, b.to(DType::I32)});
  ASSERT_EQ(m.dtype(), DType::I32);
  EXPECT_EQ(std::vector<int32_t>(m.data<int32_t>(), m.data<int32_t>() + 4), (std::vector<int32_t>{7, 2, 7, -2}));
}

TEST(ReferenceBinary, IntegerDivisionByZeroNamesTheOp) {
  try {
    run_op(OpKind::Div, {Tensor::from_i64({2}, {1, 2}), Tensor::from_i64({2}, {1, 0})});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "op #0 div: integer division by zero");
  }
}

TEST(ReferenceCast, FloatToIntTruncatesAndFloatTargetsStayF32) {
  const Tensor i = run_op(OpKind::Cast, {Tensor::from_f32({3}, {1.7f, -1.7f, 3})}, {{"dtype", std::string("i32")}});
  ASSERT_EQ(i.dtype(), DType::I32);
  EXPECT_EQ(std::vector<int32_t>(i.data<int32_t>(), i.data<int32_t>() + 3), (std::vector<int32_t>{1, -1, 3}));
  const Tensor f = run_op(OpKind::Cast, {Tensor::from_i64({2}, {-3, 40000})}, {{"dtype", std::string("f32")}});
  expect_f32(f, {2}, {-3, 40000});
  // 1 + 2^-8 is not a bf16 value; the reference does not round (no bf16 anywhere).
  const Tensor b = run_op(OpKind::Cast, {Tensor::from_f32({1}, {1.00390625f})}, {{"dtype", std::string("bf16")}});
  ASSERT_EQ(b.dtype(), DType::F32);
  EXPECT_EQ(b.data<float>()[0], 1.00390625f);
}

TEST(ReferenceConstant, FloatAndIntegerFills) {
  GraphBuilder b("constants");
  b.output("f", b.constant(1.5, {2, 2}));
  b.output("i", b.constant(3, {3}, DType::I64));
  b.output("s", b.constant(-2));
  b.output("h", b.constant(0.25, {1}, DType::BF16));
  const std::vector<Tensor> out = run_reference(b.finish(), {});
  expect_f32(out[0], {2, 2}, {1.5f, 1.5f, 1.5f, 1.5f});
  ASSERT_EQ(out[1].dtype(), DType::I64);
  EXPECT_EQ(std::vector<int64_t>(out[1].data<int64_t>(), out[1].data<int64_t>() + 3), (std::vector<int64_t>{3, 3, 3}));
  expect_f32(out[2], {}, {-2});
  expect_f32(out[3], {1}, {0.25f});
}

}  // namespace
}  // namespace meshtest::runtime::testing
