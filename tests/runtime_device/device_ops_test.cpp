// Every device op against hand-computed expected values, within bf16
// tolerance (relative 1e-2). Inputs are bf16-exact so only the device's own
// rounding of results is measured.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <tuple>
#include <limits>

#include "core/error.h"
#include "runtime/device/device_kernels.h"
#include "tests/runtime_device/device_test_util.h"

namespace meshtest {
namespace {

using testing_util::expect_close;
using testing_util::f32;
using testing_util::run_op;
using testing_util::values;

// Deterministic bf16-exact values: multiples of 1/8 in [-2, 2).
std::vector<float> pattern(int64_t n, int salt = 0) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(((i * 7 + salt * 3) % 32) - 16) / 8.0f;
  return v;
}

TEST(DeviceBf16, InlineConversionMatchesCore) {
  namespace dk = runtime::device_kernels;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 65521) {
    float f;
    const auto b32 = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b32, sizeof f);
    ASSERT_EQ(dk::store_bf16(f), f32_to_bf16(f)) << std::hex << b32;
  }
  for (float f : {0.0f, -0.0f, 1.0f, 1.00390625f, 1.01171875f, 3.4e38f, -3.4e38f, 1e-40f,
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_EQ(dk::store_bf16(f), f32_to_bf16(f)) << f;
  }
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = dk::load_bf16(static_cast<uint16_t>(h));
    const float b = bf16_to_f32(static_cast<uint16_t>(h));
    ASSERT_EQ(std::memcmp(&a, &b, sizeof a), 0);
  }
}

struct UnaryCase {
  OpKind kind;
  std::string approximate;
  double (*expected)(double);
  bool positive_only;
};

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(DeviceOps, UnaryElementwise) {
  const std::vector<UnaryCase> cases = {
      {OpKind::Relu, "", [](double x) { return x > 0 ? x : 0.0; }, false},
      {OpKind::Gelu, "none", gelu_erf, false},
      {OpKind::Gelu, "tanh", gelu_tanh, false},
      {OpKind::Tanh, "", [](double x) { return std::tanh(x); }, false},
      {OpKind::Exp, "", [](double x) { return std::exp(x); }, false},
      {OpKind::Log, "", [](double x) { return std::log(x); }, true},
      {OpKind::Sqrt, "", [](double x) { return std::sqrt(x); }, true},
      {OpKind::Rsqrt, "", [](double x) { return 1.0 / std::sqrt(x); }, true},
      {OpKind::Neg, "", [](double x) { return -x; }, false},
      {OpKind::Sigmoid, "", sigmoid, false},
      {OpKind::Silu, "", [](double x) { return x * sigmoid(x); }, false},
      {OpKind::Erf, "", [](double x) { return std::erf(x); }, false},
      {OpKind::Sin, "", [](double x) { return std::sin(x); }, false},
      {OpKind::Cos, "", [](double x) { return std::cos(x); }, false},
  };
  const std::vector<float> mixed = {-2.5f, -1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 1.5f, 3.0f};
  const std::vector<float> positive = {0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 9.0f, 0.125f, 100.0f};
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(std::string(op_name(c.kind)) + " " + c.approximate);
    const std::vector<float>& in = c.positive_only ? positive : mixed;
    Attrs attrs;
    if (!c.approximate.empty()) attrs.set("approximate", c.approximate);
    std::vector<double> want;
    for (float v : in) want.push_back(c.expected(v));
    expect_close(run_op(c.kind, {f32({2, 4}, in)}, attrs), {2, 4}, want);
  }
}

TEST(DeviceOps, BinaryElementwiseWithBroadcasting) {
  const Tensor a = f32({2, 3, 1}, {1, -2, 3, 0.5f, 4, -6});
  const Tensor b = f32({1, 4}, {2, -0.25f, 8, 1});
  const std::vector<std::pair<OpKind, double (*)(double, double)>> ops = {
      {OpKind::Add, [](double x, double y) { return x + y; }},
      {OpKind::Sub, [](double x, double y) { return x - y; }},
      {OpKind::Mul, [](double x, double y) { return x * y; }},
      {OpKind::Div, [](double x, double y) { return x / y; }},
      {OpKind::Maximum, [](double x, double y) { return std::max(x, y); }},
  };
  for (const auto& [kind, fn] : ops) {
    SCOPED_TRACE(op_name(kind));
    std::vector<double> want;
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 4; ++j) want.push_back(fn(a.data<float>()[i], b.data<float>()[j]));
    }
    expect_close(run_op(kind, {a, b}), {2, 3, 4}, want);
    // Operand order swapped: b broadcast on the left.
    std::vector<double> swapped;
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 4; ++j) swapped.push_back(fn(b.data<float>()[j], a.data<float>()[i]));
    }
    expect_close(run_op(kind, {b, a}), {2, 3, 4}, swapped);
  }
  // Scalar and long rows (several parallel chunks per row).
  const std::vector<float> long_row = pattern(70000);
  std::vector<double> want;
  for (float v : long_row) want.push_back(v * 0.5);
  expect_close(run_op(OpKind::Mul, {f32({1, 70000}, long_row), f32({}, {0.5f})}), {1, 70000}, want);
}

bool is_bf16_nan(uint16_t v) { return (v & 0x7fffu) > 0x7f80u; }

// The bf16 binary kernels round blocks of f32 results with simd::f32_to_bf16:
// the same bits as the element-by-element definition, store_bf16(op(x, y)),
// over every bf16 bit pattern (NaN, infinities, zeros, subnormals) on each
// stride shape the broadcast loop makes (contiguous, a per-row scalar on
// either side, a whole-tensor scalar).
TEST(DeviceBf16, BinaryKernelsGiveTheElementwiseDefinitionsBits) {
  namespace dk = runtime::device_kernels;
  const int64_t n = 256;
  Tensor all(DType::BF16, {n, n});
  Tensor shuffled(DType::BF16, {n, n});
  for (int64_t i = 0; i < n * n; ++i) {
    all.data<uint16_t>()[i] = static_cast<uint16_t>(i);
    shuffled.data<uint16_t>()[i] = static_cast<uint16_t>((i * 40503) & 0xffff);  // odd multiplier: a permutation
  }
  Tensor column(DType::BF16, {n, 1});
  for (int64_t i = 0; i < n; ++i) column.data<uint16_t>()[i] = static_cast<uint16_t>((i * 257 + 3) & 0xffff);
  Tensor scalar(DType::BF16, {});
  scalar.data<uint16_t>()[0] = 0x3fc0;  // 1.5
  const std::vector<std::pair<OpKind, float (*)(float, float)>> ops = {
      {OpKind::Add, [](float x, float y) { return x + y; }},
      {OpKind::Sub, [](float x, float y) { return x - y; }},
      {OpKind::Mul, [](float x, float y) { return x * y; }},
      {OpKind::Div, [](float x, float y) { return x / y; }},
      {OpKind::Maximum,
       [](float x, float y) { return std::isnan(x) || std::isnan(y) ? std::numeric_limits<float>::quiet_NaN() : (x > y ? x : y); }},
  };
  const std::vector<std::pair<const Tensor*, const Tensor*>> shapes = {
      {&all, &shuffled}, {&all, &column}, {&column, &shuffled}, {&all, &scalar}, {&scalar, &shuffled}};
  for (const auto& [kind, fn] : ops) {
    for (const auto& [a, b] : shapes) {
      SCOPED_TRACE(std::string(op_name(kind)) + " " + shape_to_string(a->shape()) + " " + shape_to_string(b->shape()));
      Tensor out(DType::BF16, {n, n});
      dk::binary(kind, *a, *b, out);
      int64_t mismatches = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const uint16_t x = a->numel() == 1 ? a->data<uint16_t>()[0] : a->data<uint16_t>()[a->dim(1) == 1 ? i : i * n + j];
          const uint16_t y = b->numel() == 1 ? b->data<uint16_t>()[0] : b->data<uint16_t>()[b->dim(1) == 1 ? i : i * n + j];
          const uint16_t want = dk::store_bf16(fn(dk::load_bf16(x), dk::load_bf16(y)));
          const uint16_t got = out.data<uint16_t>()[i * n + j];
          // Two NaN operands: a NaN, whose payload IEEE 754 leaves open (x86
          // keeps the first source's, and a compiler may swap the sources of
          // a commutative op); every other result bit for bit.
          if (is_bf16_nan(x) && is_bf16_nan(y) ? !is_bf16_nan(got) : got != want) {
            if (mismatches++ >= 5) continue;
            ADD_FAILURE() << std::hex << "x " << x << " y " << y << ": got " << got << ", want " << want;
          }
        }
      }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

// The bf16 unary kernels round blocks of f32 results with simd::f32_to_bf16:
// the same bits as store_bf16(f(x)) for every bf16 bit pattern, f written
// out here as the kernels define it.
TEST(DeviceBf16, UnaryKernelsGiveTheElementwiseDefinitionsBits) {
  namespace dk = runtime::device_kernels;
  const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  const std::vector<std::tuple<OpKind, std::string, std::function<float(float)>>> ops = {
      {OpKind::Relu, "", [](float v) { return v > 0.0f ? v : (std::isnan(v) ? v : 0.0f); }},
      {OpKind::Gelu, "none", [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f)); }},
      {OpKind::Gelu, "tanh",
       [](float v) { return 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v))); }},
      {OpKind::Tanh, "", [](float v) { return std::tanh(v); }},
      {OpKind::Exp, "", [](float v) { return std::exp(v); }},
      {OpKind::Log, "", [](float v) { return std::log(v); }},
      {OpKind::Sqrt, "", [](float v) { return std::sqrt(v); }},
      {OpKind::Rsqrt, "", [](float v) { return 1.0f / std::sqrt(v); }},
      {OpKind::Neg, "", [](float v) { return -v; }},
      {OpKind::Sigmoid, "", sigmoid},
      {OpKind::Silu, "", [&](float v) { return v * sigmoid(v); }},
      {OpKind::Erf, "", [](float v) { return std::erf(v); }},
      {OpKind::Sin, "", [](float v) { return std::sin(v); }},
      {OpKind::Cos, "", [](float v) { return std::cos(v); }},
  };
  Tensor all(DType::BF16, {65536});
  for (int64_t i = 0; i < 65536; ++i) all.data<uint16_t>()[i] = static_cast<uint16_t>(i);
  std::set<OpKind> covered;
  for (const auto& [kind, approximate, fn] : ops) {
    SCOPED_TRACE(std::string(op_name(kind)) + " " + approximate);
    Attrs attrs;
    if (!approximate.empty()) attrs.set("approximate", approximate);
    Tensor out(DType::BF16, {65536});
    dk::unary(kind, attrs, all, out);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < 65536; ++i) {
      const uint16_t x = static_cast<uint16_t>(i);
      const uint16_t want = dk::store_bf16(fn(dk::load_bf16(x)));
      const uint16_t got = out.data<uint16_t>()[i];
      // A NaN input: a quiet NaN, whose sign and payload IEEE 754 leaves to
      // the order of operations (silu(NaN) = NaN * sigmoid(NaN) has two NaN
      // sources, one of them negated; the ASan build's -O1 picks the other);
      // every other result bit for bit.
      const bool wrong = is_bf16_nan(x) ? !(is_bf16_nan(got) && (got & 0x0040u) != 0) : got != want;
      if (wrong && mismatches++ < 5) ADD_FAILURE() << std::hex << "x " << x << ": got " << got << ", want " << want;
    }
    EXPECT_EQ(mismatches, 0);
    covered.insert(kind);
  }
  for (OpKind kind : unary_elementwise_ops()) EXPECT_TRUE(covered.count(kind)) << op_name(kind) << " has no case";
}

TEST(DeviceOps, BinaryOnIntegers) {
  const Tensor a = Tensor::from_i64({2, 2}, {1, -7, 30, 4});
  const Tensor b = Tensor::from_i64({2}, {3, 2});
  const Tensor sum = run_op(OpKind::Add, {a, b});
  EXPECT_EQ(sum.dtype(), DType::I64);
  EXPECT_EQ(values(sum), (std::vector<double>{4, -5, 33, 6}));
  EXPECT_EQ(values(run_op(OpKind::Div, {a, b})), (std::vector<double>{0, -4, 10, 2}));  // floor, as python //
  EXPECT_EQ(values(run_op(OpKind::Maximum, {a, b})), (std::vector<double>{3, 2, 30, 4}));
  EXPECT_THROW(run_op(OpKind::Div, {a, Tensor::from_i64({1}, {0})}), RuntimeError);
}

TEST(DeviceOps, CastAndConstant) {
  const Tensor c = run_op(OpKind::Cast, {f32({4}, {1.5f, -2.75f, 3.0f, 0.0f})}, {{"dtype", std::string("i32")}});
  EXPECT_EQ(c.dtype(), DType::I32);
  EXPECT_EQ(values(c), (std::vector<double>{1, -2, 3, 0}));
  const Tensor back =
      run_op(OpKind::Cast, {Tensor::from_i64({3}, {5, -300, 1 << 20})}, {{"dtype", std::string("f32")}});
  EXPECT_EQ(back.dtype(), DType::F32);
  expect_close(back, {3}, {5, -300, 1 << 20});

  GraphBuilder g("constants");
  g.output("f", g.constant(0.3, {2, 3}));
  g.output("i", g.constant(7, {2}, DType::I64));
  const std::vector<Tensor> out = testing_util::run_device(g.finish(), {});
  expect_close(out[0], {2, 3}, std::vector<double>(6, 0.3));
  EXPECT_EQ(out[0].data<float>()[0], 0.30078125f);  // bf16 rounding of 0.3
  EXPECT_EQ(out[1].dtype(), DType::I64);
  EXPECT_EQ(values(out[1]), (std::vector<double>{7, 7}));
}

// Naive [batch] matmul on doubles.
std::vector<double> matmul_expected(const std::vector<float>& a, const std::vector<float>& b, int64_t batch, int64_t m,
                                    int64_t k, int64_t n, bool share_b = false) {
  std::vector<double> out;
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) {
          s += static_cast<double>(a[static_cast<size_t>(p * m * k + i * k + q)]) *
               b[static_cast<size_t>((share_b ? 0 : p) * k * n + q * n + j)];
        }
        out.push_back(s);
      }
    }
  }
  return out;
}

TEST(DeviceOps, Matmul) {
  expect_close(run_op(OpKind::Matmul, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 2}, {7, 8, 9, 10, 11, 12})}), {2, 2},
               {58, 64, 139, 154});
  // Batched with equal batch dims.
  const auto a = pattern(2 * 3 * 5, 1);
  const auto b = pattern(2 * 5 * 4, 2);
  expect_close(run_op(OpKind::Matmul, {f32({2, 3, 5}, a), f32({2, 5, 4}, b)}), {2, 3, 4},
               matmul_expected(a, b, 2, 3, 5, 4));
  // Shared rank-2 rhs (batch folded into M).
  expect_close(run_op(OpKind::Matmul, {f32({2, 3, 5}, a), f32({5, 4}, pattern(20, 3))}), {2, 3, 4},
               matmul_expected(a, pattern(20, 3), 2, 3, 5, 4, true));
  // General broadcast: a [2,1,3,5] x b [3,5,4] -> [2,3,3,4].
  const auto a2 = pattern(2 * 3 * 5, 4);
  const auto b2 = pattern(3 * 5 * 4, 5);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    const std::vector<float> ai(a2.begin() + i * 15, a2.begin() + (i + 1) * 15);
    for (int j = 0; j < 3; ++j) {
      const std::vector<float> bj(b2.begin() + j * 20, b2.begin() + (j + 1) * 20);
      const auto r = matmul_expected(ai, bj, 1, 3, 5, 4);
      want.insert(want.end(), r.begin(), r.end());
    }
  }
  expect_close(run_op(OpKind::Matmul, {f32({2, 1, 3, 5}, a2), f32({3, 5, 4}, b2)}), {2, 3, 3, 4}, want);
}

TEST(DeviceOps, LinearWithAndWithoutBias) {
  const Tensor x = f32({2, 3}, {1, 2, 3, -1, 0.5f, 2});
  const Tensor w = f32({2, 3}, {1, 0, -1, 2, 1, 0.25f});
  const Tensor bias = f32({2}, {0.5f, -1});
  expect_close(run_op(OpKind::Linear, {x, w, bias}), {2, 2}, {-2 + 0.5, 4.75 - 1, -3 + 0.5, -1 - 1});
  expect_close(run_op(OpKind::Linear, {x, w}), {2, 2}, {-2, 4.75, -3, -1});
  // Rank-3 input, wider shapes.
  const auto xv = pattern(2 * 4 * 40, 6);
  const auto wv = pattern(24 * 40, 7);
  std::vector<double> want;
  for (int r = 0; r < 8; ++r) {
    for (int o = 0; o < 24; ++o) {
      double s = 0;
      for (int q = 0; q < 40; ++q) s += static_cast<double>(xv[r * 40 + q]) * wv[o * 40 + q];
      want.push_back(s);
    }
  }
  expect_close(run_op(OpKind::Linear, {f32({2, 4, 40}, xv), f32({24, 40}, wv)}), {2, 4, 24}, want, 1e-2, 2e-2);
}

struct ConvCase {
  Shape x, w;
  int64_t stride, pad, dil, groups;
  bool bias;
};

std::vector<double> conv_expected(const ConvCase& c, const std::vector<float>& x, const std::vector<float>& w,
                                  const std::vector<float>& bias, Shape& out_shape) {
  const int64_t n = c.x[0], ci = c.x[1], h = c.x[2], wd = c.x[3];
  const int64_t co = c.w[0], cig = c.w[1], kh = c.w[2], kw = c.w[3];
  const int64_t oh = (h + 2 * c.pad - c.dil * (kh - 1) - 1) / c.stride + 1;
  const int64_t ow = (wd + 2 * c.pad - c.dil * (kw - 1) - 1) / c.stride + 1;
  out_shape = {n, co, oh, ow};
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < co; ++o) {
      const int64_t g = o / (co / c.groups);
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double s = c.bias ? bias[static_cast<size_t>(o)] : 0.0;
          for (int64_t q = 0; q < cig; ++q) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * c.stride - c.pad + i * c.dil;
                const int64_t ix = xx * c.stride - c.pad + j * c.dil;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                s += static_cast<double>(x[static_cast<size_t>(((b * ci + g * cig + q) * h + iy) * wd + ix)]) *
                     w[static_cast<size_t>(((o * cig + q) * kh + i) * kw + j)];
              }
            }
          }
          out.push_back(s);
        }
      }
    }
  }
  return out;
}

TEST(DeviceOps, Conv2dByHand) {
  // x = 1..9 (3x3), w = [[1,0],[0,-1]]: every output is x[i][j] - x[i+1][j+1] = -4.
  std::vector<float> x(9);
  for (int i = 0; i < 9; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i + 1);
  expect_close(run_op(OpKind::Conv2d, {f32({1, 1, 3, 3}, x), f32({1, 1, 2, 2}, {1, 0, 0, -1})}), {1, 1, 2, 2},
               {-4, -4, -4, -4});
}

TEST(DeviceOps, Conv2dStridePaddingDilationGroupsBias) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 7, 7}, {4, 3, 3, 3}, 1, 1, 1, 1, true},    {{2, 4, 9, 8}, {6, 4, 3, 3}, 2, 1, 1, 1, false},
      {{1, 4, 9, 9}, {4, 2, 3, 3}, 1, 2, 2, 2, true},    {{1, 8, 6, 6}, {8, 1, 3, 3}, 1, 1, 1, 8, true},  // depthwise
      {{1, 16, 5, 5}, {32, 16, 1, 1}, 1, 0, 1, 1, true}, {{1, 3, 16, 16}, {8, 3, 7, 7}, 2, 3, 1, 1, false},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(shape_to_string(c.x) + " * " + shape_to_string(c.w) + " groups " + std::to_string(c.groups));
    const auto x = pattern(shape_numel(c.x), 1);
    auto w = pattern(shape_numel(c.w), 2);
    for (float& v : w) v *= 0.25f;
    const auto bias = pattern(c.w[0], 3);
    Shape out_shape;
    const auto want = conv_expected(c, x, w, bias, out_shape);
    std::vector<Tensor> ins = {f32(c.x, x), f32(c.w, w)};
    if (c.bias) ins.push_back(f32({c.w[0]}, bias));
    const Attrs attrs{{"stride", std::vector<int64_t>{c.stride, c.stride}},
                      {"padding", std::vector<int64_t>{c.pad, c.pad}},
                      {"dilation", std::vector<int64_t>{c.dil, c.dil}},
                      {"groups", c.groups}};
    expect_close(run_op(OpKind::Conv2d, ins, attrs), out_shape, want, 1e-2, 2e-2);
  }
}

TEST(DeviceOps, Pooling) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  const Tensor t = f32({1, 1, 4, 4}, x);
  const Attrs k2s2{{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}};
  expect_close(run_op(OpKind::MaxPool2d, {t}, k2s2), {1, 1, 2, 2}, {5, 7, 13, 15});
  expect_close(run_op(OpKind::AvgPool2d, {t}, k2s2), {1, 1, 2, 2}, {2.5, 4.5, 10.5, 12.5});
  // 3x3 windows, stride 2, padding 1: corners see 4 real elements.
  Attrs k3{{"kernel", std::vector<int64_t>{3, 3}},
           {"stride", std::vector<int64_t>{2, 2}},
           {"padding", std::vector<int64_t>{1, 1}}};
  expect_close(run_op(OpKind::MaxPool2d,
                      {f32({1, 1, 4, 4},
                           [&] {
                             auto v = x;
                             for (float& e : v) e = -e;  // all negative: padding must not win
                             return v;
                           }())},
                      k3),
               {1, 1, 2, 2}, {0, -1, -4, -5});
  // windows (rows x cols): [0..1]x[0..1], [0..1]x[1..3], [1..3]x[0..1], [1..3]x[1..3]
  const std::vector<double> sums = {0 + 1 + 4 + 5, 1 + 2 + 3 + 5 + 6 + 7, 4 + 5 + 8 + 9 + 12 + 13,
                                    5 + 6 + 7 + 9 + 10 + 11 + 13 + 14 + 15};
  const std::vector<double> counts = {4, 6, 6, 9};
  std::vector<double> exclude, include;
  for (size_t i = 0; i < 4; ++i) {
    exclude.push_back(sums[i] / counts[i]);
    include.push_back(sums[i] / 9.0);
  }
  k3.set("count_include_pad", int64_t{0});
  expect_close(run_op(OpKind::AvgPool2d, {t}, k3), {1, 1, 2, 2}, exclude);
  k3.set("count_include_pad", int64_t{1});
  expect_close(run_op(OpKind::AvgPool2d, {t}, k3), {1, 1, 2, 2}, include);
  // Global average: per channel mean.
  const auto g = pattern(2 * 3 * 5 * 5, 4);
  std::vector<double> means;
  for (int c = 0; c < 6; ++c) {
    double s = 0;
    for (int i = 0; i < 25; ++i) s += g[static_cast<size_t>(c * 25 + i)];
    means.push_back(s / 25);
  }
  expect_close(run_op(OpKind::GlobalAvgPool2d, {f32({2, 3, 5, 5}, g)}), {2, 3, 1, 1}, means);
}

TEST(DeviceOps, BatchNorm) {
  const auto x = pattern(2 * 3 * 2 * 2, 5);
  const std::vector<float> scale = {1, 2, 0.5f}, bias = {0, 1, -1}, mean = {0.5f, -1, 0}, var = {1, 4, 0.25f};
  std::vector<double> want;
  for (int i = 0; i < 24; ++i) {
    const int c = (i / 4) % 3;
    want.push_back((x[static_cast<size_t>(i)] - mean[c]) / std::sqrt(var[c] + 1e-5) * scale[c] + bias[c]);
  }
  expect_close(
      run_op(OpKind::BatchNorm, {f32({2, 3, 2, 2}, x), f32({3}, scale), f32({3}, bias), f32({3}, mean), f32({3}, var)},
             {{"eps", 1e-5}}),
      {2, 3, 2, 2}, want, 1e-2, 1e-2);
}

TEST(DeviceOps, LayerNorm) {
  const std::vector<float> x = {1, 2, 3, 4, -1, 0, 0, 1};
  const std::vector<float> gamma = {1, 2, 1, 0.5f}, beta = {0, 0, 1, -1};
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 4; ++i) mean += x[static_cast<size_t>(r * 4 + i)] / 4.0;
    for (int i = 0; i < 4; ++i) var += std::pow(x[static_cast<size_t>(r * 4 + i)] - mean, 2) / 4.0;
    for (int i = 0; i < 4; ++i) {
      want.push_back((x[static_cast<size_t>(r * 4 + i)] - mean) / std::sqrt(var + 1e-5) *
                         gamma[static_cast<size_t>(i)] +
                     beta[static_cast<size_t>(i)]);
    }
  }
  expect_close(run_op(OpKind::LayerNorm, {f32({2, 4}, x), f32({4}, gamma), f32({4}, beta)}, {{"eps", 1e-5}}), {2, 4},
               want, 1e-2, 1e-2);
}

TEST(DeviceOps, SoftmaxOnLastAndInnerAxis) {
  const std::vector<float> x = {1, 2, 3, -1, 0, 4};
  auto softmax_rows = [](const std::vector<double>& v) {
    double m = *std::max_element(v.begin(), v.end()), s = 0;
    std::vector<double> e;
    for (double a : v) s += std::exp(a - m);
    for (double a : v) e.push_back(std::exp(a - m) / s);
    return e;
  };
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    const auto e = softmax_rows(
        {x[static_cast<size_t>(r * 3)], x[static_cast<size_t>(r * 3 + 1)], x[static_cast<size_t>(r * 3 + 2)]});
    want.insert(want.end(), e.begin(), e.end());
  }
  expect_close(run_op(OpKind::Softmax, {f32({2, 3}, x)}, {{"axis", int64_t{-1}}}), {2, 3}, want);
  // axis 0 of [2,3]: columns.
  std::vector<double> cols(6);
  for (int c = 0; c < 3; ++c) {
    const auto e = softmax_rows({x[static_cast<size_t>(c)], x[static_cast<size_t>(3 + c)]});
    cols[static_cast<size_t>(c)] = e[0];
    cols[static_cast<size_t>(3 + c)] = e[1];
  }
  expect_close(run_op(OpKind::Softmax, {f32({2, 3}, x)}, {{"axis", int64_t{0}}}), {2, 3}, cols);
}

TEST(DeviceOps, EmbeddingGathersRowsAndRejectsBadIds) {
  const Tensor table = f32({4, 2}, {0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f});
  const Tensor out = run_op(OpKind::Embedding, {Tensor::from_i64({2, 2}, {3, 0, 1, 3}), table});
  expect_close(out, {2, 2, 2}, {3, 3.5, 0, 0.5, 1, 1.5, 3, 3.5});
  try {
    run_op(OpKind::Embedding, {Tensor::from_i64({2}, {1, 4}), table});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("chip 0, op #0 embedding"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("id 4"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("out of range"));
  }
}

TEST(DeviceOps, ReshapeTransposeConcatSlice) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};  // [2,3]
  expect_close(run_op(OpKind::Reshape, {f32({2, 3}, x)}, {{"shape", std::vector<int64_t>{3, 2}}}), {3, 2},
               {0, 1, 2, 3, 4, 5});
  expect_close(run_op(OpKind::Transpose, {f32({2, 3}, x)}, {{"perm", std::vector<int64_t>{1, 0}}}), {3, 2},
               {0, 3, 1, 4, 2, 5});
  // [2,3,4] -> perm [2,0,1] -> [4,2,3]
  std::vector<float> y(24);
  for (int i = 0; i < 24; ++i) y[static_cast<size_t>(i)] = static_cast<float>(i);
  std::vector<double> want;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want.push_back(i * 12 + j * 4 + k);
    }
  }
  expect_close(run_op(OpKind::Transpose, {f32({2, 3, 4}, y)}, {{"perm", std::vector<int64_t>{2, 0, 1}}}), {4, 2, 3},
               want);
  expect_close(run_op(OpKind::Concat, {f32({2, 1}, {9, 8}), f32({2, 3}, x), f32({2, 2}, {-1, -2, -3, -4})},
                      {{"axis", int64_t{1}}}),
               {2, 6}, {9, 0, 1, 2, -1, -2, 8, 3, 4, 5, -3, -4});
  expect_close(run_op(OpKind::Concat, {f32({1, 3}, {7, 7, 7}), f32({2, 3}, x)}, {{"axis", int64_t{0}}}), {3, 3},
               {7, 7, 7, 0, 1, 2, 3, 4, 5});
  // slice axis 1 of [2,5], start -4, end 5, step 2 -> columns 1, 3
  const std::vector<float> z = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  expect_close(run_op(OpKind::Slice, {f32({2, 5}, z)},
                      {{"axis", int64_t{1}}, {"start", int64_t{-4}}, {"end", int64_t{5}}, {"step", int64_t{2}}}),
               {2, 2}, {1, 3, 6, 8});
  expect_close(
      run_op(OpKind::Slice, {f32({2, 5}, z)}, {{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{9}}}),
      {1, 5}, {5, 6, 7, 8, 9});
  // Integers move unchanged.
  const Tensor ids =
      run_op(OpKind::Transpose, {Tensor::from_i64({2, 2}, {1, 2, 3, 4})}, {{"perm", std::vector<int64_t>{1, 0}}});
  EXPECT_EQ(ids.dtype(), DType::I64);
  EXPECT_EQ(values(ids), (std::vector<double>{1, 3, 2, 4}));
}

TEST(DeviceOps, Reductions) {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 5) % 24) / 4.0f;
  const Tensor t = f32({2, 3, 4}, x);
  // axes [1], keepdim -> [2,1,4]
  std::vector<double> sum1, mean1, max1;
  for (int a = 0; a < 2; ++a) {
    for (int c = 0; c < 4; ++c) {
      double s = 0, m = -1e9;
      for (int b = 0; b < 3; ++b) {
        s += x[static_cast<size_t>(a * 12 + b * 4 + c)];
        m = std::max<double>(m, x[static_cast<size_t>(a * 12 + b * 4 + c)]);
      }
      sum1.push_back(s);
      mean1.push_back(s / 3);
      max1.push_back(m);
    }
  }
  const Attrs keep{{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{1}}};
  expect_close(run_op(OpKind::ReduceSum, {t}, keep), {2, 1, 4}, sum1);
  expect_close(run_op(OpKind::ReduceMean, {t}, keep), {2, 1, 4}, mean1);
  expect_close(run_op(OpKind::ReduceMax, {t}, keep), {2, 1, 4}, max1);
  // axes [0, -1] without keepdim -> [3]
  std::vector<double> sum02;
  for (int b = 0; b < 3; ++b) {
    double s = 0;
    for (int a = 0; a < 2; ++a) {
      for (int c = 0; c < 4; ++c) s += x[static_cast<size_t>(a * 12 + b * 4 + c)];
    }
    sum02.push_back(s);
  }
  expect_close(run_op(OpKind::ReduceSum, {t}, {{"axes", std::vector<int64_t>{0, -1}}}), {3}, sum02);
  const Tensor isum =
      run_op(OpKind::ReduceSum, {Tensor::from_i64({2, 2}, {1, 2, 3, 4})}, {{"axes", std::vector<int64_t>{0}}});
  EXPECT_EQ(values(isum), (std::vector<double>{4, 6}));
}

}  // namespace
}  // namespace meshtest
