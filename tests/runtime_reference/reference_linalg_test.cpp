// Reference executor: matmul (incl. broadcast batch dims), linear and conv2d
// (stride, padding, dilation, groups, depthwise, 1x1) against hand-computed
// values, plus larger shapes against naive loops written here.
#include "core/error.h"
#include "core/rng.h"
#include "reference_test_util.h"

namespace meshtest::runtime::testing {
namespace {

TEST(ReferenceMatmul, TwoByTwo) {
  const Tensor a = Tensor::from_f32({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_f32({2, 2}, {5, 6, 7, 8});
  expect_f32(run_op(OpKind::Matmul, {a, b}), {2, 2}, {19, 22, 43, 50});
}

TEST(ReferenceMatmul, RectangularWithSharedRhs) {
  // [2,1,3] @ [3,2]: batches folded into one GEMM.
  const Tensor a = Tensor::from_f32({2, 1, 3}, {1, 2, 3, -1, 0, 1});
  const Tensor b = Tensor::from_f32({3, 2}, {1, 0, 0, 1, 1, 1});
  // row [1,2,3] -> [1+3, 2+3]; row [-1,0,1] -> [-1+1, 0+1]
  expect_f32(run_op(OpKind::Matmul, {a, b}), {2, 1, 2}, {4, 5, 0, 1});
}

TEST(ReferenceMatmul, BroadcastBatchDims) {
  // a[i] = (i+1) * I  with batch [2,1]; b[j] = [[j,1],[0,j]] with batch [3]
  // -> out[i][j] = (i+1) * b[j], batch [2,3].
  const Tensor a = Tensor::from_f32({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  const Tensor b = Tensor::from_f32({3, 2, 2}, {0, 1, 0, 0, 1, 1, 0, 1, 2, 1, 0, 2});
  expect_f32(run_op(OpKind::Matmul, {a, b}), {2, 3, 2, 2}, {0, 1, 0, 0, 1, 1, 0, 1, 2, 1, 0, 2,  //
                                                            0, 2, 0, 0, 2, 2, 0, 2, 4, 2, 0, 4});
  // lhs broadcast: [1,1,2] @ [2,2,1] -> [2,1,1]
  const Tensor c = Tensor::from_f32({1, 1, 2}, {1, 2});
  const Tensor d = Tensor::from_f32({2, 2, 1}, {3, 4, -1, 1});
  expect_f32(run_op(OpKind::Matmul, {c, d}), {2, 1, 1}, {11, 1});
}

// out[b] = a[b % a_batches] @ w computed with a plain triple loop in double.
void check_matmul_against_loops(const Shape& a_shape, const Shape& b_shape) {
  const Tensor a = random_normal(a_shape, 1);
  const Tensor b = random_normal(b_shape, 2);
  const Tensor out = run_op(OpKind::Matmul, {a, b});
  const int64_t m = a_shape[a_shape.size() - 2], k = a_shape.back(), n = b_shape.back();
  const int64_t a_batches = a.numel() / (m * k), b_batches = b.numel() / (k * n);
  const int64_t batches = std::max(a_batches, b_batches);
  ASSERT_EQ(out.numel(), batches * m * n);
  std::vector<double> expected;
  for (int64_t bi = 0; bi < batches; ++bi) {
    const float* pa = a.data<float>() + (a_batches == 1 ? 0 : bi) * m * k;
    const float* pb = b.data<float>() + (b_batches == 1 ? 0 : bi) * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t t = 0; t < k; ++t) s += static_cast<double>(pa[i * k + t]) * pb[t * n + j];
        expected.push_back(s);
      }
    }
  }
  expect_close_to(out, expected, 1e-3);
}

TEST(ReferenceMatmul, LargeShapesMatchLoops) {
  check_matmul_against_loops({3, 70, 90}, {90, 110});     // folded rows, split over M
  check_matmul_against_loops({4, 40, 50}, {4, 50, 260});  // per batch, split over N
  check_matmul_against_loops({1, 33, 64}, {5, 64, 17});   // lhs broadcast
}

TEST(ReferenceLinear, WithAndWithoutBias) {
  const Tensor x = Tensor::from_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = Tensor::from_f32({2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  const Tensor bias = Tensor::from_f32({2}, {10, 20});
  // x @ w^T = [[1-3, 3], [4-6, 7.5]]
  expect_f32(run_op(OpKind::Linear, {x, w}), {2, 2}, {-2, 3, -2, 7.5f});
  expect_f32(run_op(OpKind::Linear, {x, w, bias}), {2, 2}, {8, 23, 8, 27.5f});
  // Leading dims are kept: [2,1,3] -> [2,1,2].
  expect_f32(run_op(OpKind::Linear, {x.reshaped({2, 1, 3}), w, bias}), {2, 1, 2}, {8, 23, 8, 27.5f});
}

TEST(ReferenceLinear, LargeMatchesLoops) {
  const Tensor x = random_normal({5, 37, 300}, 3);
  const Tensor w = random_normal({500, 300}, 4);
  const Tensor bias = random_normal({500}, 5);
  const Tensor out = run_op(OpKind::Linear, {x, w, bias});
  ASSERT_EQ(out.shape(), (Shape{5, 37, 500}));
  std::vector<double> expected;
  for (int64_t r = 0; r < 5 * 37; ++r) {
    for (int64_t o = 0; o < 500; ++o) {
      double s = bias.data<float>()[o];
      for (int64_t t = 0; t < 300; ++t)
        s += static_cast<double>(x.data<float>()[r * 300 + t]) * w.data<float>()[o * 300 + t];
      expected.push_back(s);
    }
  }
  expect_close_to(out, expected, 1e-3);
}

// A bf16 weight (a device's, as the per-op check passes it) is widened a
// block of rows at a time: the result is that of its values in f32, over
// several blocks and a remainder.
TEST(ReferenceLinear, ABf16WeightGivesTheResultOfItsValuesInF32) {
  const Tensor x = random_normal({3, 40, 300}, 6);
  const Tensor w = random_normal({500, 300}, 7).to(DType::BF16);
  const Tensor bias = random_normal({500}, 8);
  // The kernel itself (a graph's linear takes operands of one dtype).
  const Tensor held = run_reference_op(Op{OpKind::Linear, {}, kNoValue, {}}, {x, w, bias});
  const Tensor widened = run_op(OpKind::Linear, {x, w.to(DType::F32), bias});
  ASSERT_EQ(held.shape(), widened.shape());
  std::vector<double> expected(widened.data<float>(), widened.data<float>() + widened.numel());
  expect_close_to(held, expected, 1e-3);
}

Attrs conv_attrs(std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
                 int64_t groups) {
  return {{"stride", std::move(stride)},
          {"padding", std::move(padding)},
          {"dilation", std::move(dilation)},
          {"groups", groups}};
}

TEST(ReferenceConv2d, DiagonalKernelAndBias) {
  // x = 1..9 in 3x3, kernel [[1,0],[0,1]]: out(i,j) = x(i,j) + x(i+1,j+1).
  const Tensor x = iota({1, 1, 3, 3}, 1);
  const Tensor w = Tensor::from_f32({1, 1, 2, 2}, {1, 0, 0, 1});
  expect_f32(run_op(OpKind::Conv2d, {x, w}), {1, 1, 2, 2}, {6, 8, 12, 14});
  expect_f32(run_op(OpKind::Conv2d, {x, w, Tensor::from_f32({1}, {1})}), {1, 1, 2, 2}, {7, 9, 13, 15});
}

TEST(ReferenceConv2d, StrideAndPadding) {
  // 3x3 ones, stride 2, padding 1 over 1..9: the four 2x2 corner sums.
  const Tensor x = iota({1, 1, 3, 3}, 1);
  const Tensor w = Tensor::from_f32({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  expect_f32(run_op(OpKind::Conv2d, {x, w}, conv_attrs({2, 2}, {1, 1}, {1, 1}, 1)), {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(ReferenceConv2d, Dilation) {
  // x(i,j) = 5i + j on 5x5, 3x3 ones dilated by 2 (taps at 0,2,4):
  // sum over i,j in {0,2,4} of 5i+j = 3*5*6 + 3*6 = 108.
  const Tensor x = iota({1, 1, 5, 5});
  const Tensor w = Tensor::from_f32({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  expect_f32(run_op(OpKind::Conv2d, {x, w}, conv_attrs({1, 1}, {0, 0}, {2, 2}, 1)), {1, 1, 1, 1}, {108});
  // With padding 2 the output is 5x5; corner (0,0) keeps taps (0,0),(0,2),(2,0),(2,2):
  // 0 + 2 + 10 + 12 = 24. Full grid cross-checked once with torch conv2d.
  expect_f32(run_op(OpKind::Conv2d, {x, w}, conv_attrs({1, 1}, {2, 2}, {2, 2}, 1)), {1, 1, 5, 5},
             {24, 28, 42, 28, 32, 44, 48, 72, 48, 52, 66, 72, 108, 72, 78, 44, 48, 72, 48, 52, 64, 68, 102, 68, 72});
}

TEST(ReferenceConv2d, GroupsOneByOne) {
  // 4 input channels [1,2,3,4], 2 groups, 4 outputs: group 0 sees (1,2), group 1 sees (3,4).
  const Tensor x = Tensor::from_f32({1, 4, 1, 1}, {1, 2, 3, 4});
  const Tensor w = Tensor::from_f32({4, 2, 1, 1}, {1, 0, 0, 1, 1, 1, 2, 0});
  expect_f32(run_op(OpKind::Conv2d, {x, w}, conv_attrs({1, 1}, {0, 0}, {1, 1}, 2)), {1, 4, 1, 1}, {1, 2, 7, 6});
}

TEST(ReferenceConv2d, Depthwise) {
  // Channel 0 = 1..9 with a ones kernel (3x3 neighbourhood sums, zero padded);
  // channel 1 = ones with a centre-only kernel of 2, plus bias 0.5.
  std::vector<float> xv;
  for (int i = 1; i <= 9; ++i) xv.push_back(static_cast<float>(i));
  for (int i = 0; i < 9; ++i) xv.push_back(1.0f);
  std::vector<float> wv(9, 1.0f);
  for (int i = 0; i < 9; ++i) wv.push_back(i == 4 ? 2.0f : 0.0f);
  const Tensor out =
      run_op(OpKind::Conv2d,
             {Tensor::from_f32({1, 2, 3, 3}, xv), Tensor::from_f32({2, 1, 3, 3}, wv), Tensor::from_f32({2}, {0, 0.5f})},
             conv_attrs({1, 1}, {1, 1}, {1, 1}, 2));
  expect_f32(out, {1, 2, 3, 3},
             {12, 21, 16, 27, 45, 33, 24, 39, 28,  //
              2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f});
}

TEST(ReferenceConv2d, PointwiseBatched) {
  // 1x1 stride 1: out = x[:,0] + 10 x[:,1] per pixel, two batches.
  const Tensor x = Tensor::from_f32({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor w = Tensor::from_f32({1, 2, 1, 1}, {1, 10});
  expect_f32(run_op(OpKind::Conv2d, {x, w}), {2, 1, 1, 2}, {31, 42, 75, 86});
}

// Direct convolution with plain loops in double.
std::vector<double> naive_conv(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t sh, int64_t sw, int64_t ph,
                               int64_t pw, int64_t dh, int64_t dw, int64_t groups) {
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const int64_t O = w.dim(0), Cg = w.dim(1), KH = w.dim(2), KW = w.dim(3);
  const int64_t OH = (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1, OW = (W + 2 * pw - dw * (KW - 1) - 1) / sw + 1;
  const int64_t Og = O / groups;
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < O; ++o) {
      const int64_t g = o / Og;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = bias.data<float>()[o];
          for (int64_t c = 0; c < Cg; ++c) {
            for (int64_t i = 0; i < KH; ++i) {
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t ih = oh * sh - ph + i * dh, iw = ow * sw - pw + j * dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += static_cast<double>(x.data<float>()[((n * C + g * Cg + c) * H + ih) * W + iw]) *
                     w.data<float>()[((o * Cg + c) * KH + i) * KW + j];
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

struct ConvCase {
  Shape x, w;
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

TEST(ReferenceConv2d, LargerShapesMatchDirectLoops) {
  const ConvCase cases[] = {
      {{1, 3, 30, 28}, {16, 3, 7, 7}, 2, 2, 3, 3, 1, 1, 1},    // resnet stem-like
      {{2, 8, 17, 19}, {12, 4, 3, 3}, 1, 2, 1, 0, 2, 1, 2},    // groups, asymmetric stride/pad/dilation
      {{2, 6, 15, 15}, {6, 1, 3, 3}, 2, 2, 1, 1, 1, 1, 6},     // depthwise, stride 2
      {{1, 5, 11, 40}, {5, 1, 3, 5}, 1, 1, 2, 1, 2, 1, 5},     // depthwise: stride 1 rows, dilation, wide padding
      {{1, 4, 9, 9}, {4, 1, 5, 5}, 3, 2, 0, 4, 1, 2, 4},       // depthwise: asymmetric stride, padding past the taps
      {{1, 3, 8, 8}, {6, 1, 3, 3}, 1, 1, 1, 1, 1, 1, 3},       // depth multiplier 2 (the grouped GEMM path)
      {{1, 64, 20, 20}, {96, 64, 1, 1}, 1, 1, 0, 0, 1, 1, 1},  // 1x1 direct path, split over N
      {{1, 32, 9, 9}, {256, 32, 3, 3}, 1, 1, 1, 1, 1, 1, 1},   // split over M
  };
  uint64_t seed = 10;
  for (const ConvCase& c : cases) {
    const Tensor x = random_normal(c.x, ++seed);
    const Tensor w = random_normal(c.w, ++seed);
    const Tensor bias = random_normal({c.w[0]}, ++seed);
    const Tensor out =
        run_op(OpKind::Conv2d, {x, w, bias}, conv_attrs({c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, c.groups));
    SCOPED_TRACE(shape_to_string(c.x) + " * " + shape_to_string(c.w));
    expect_close_to(out, naive_conv(x, w, bias, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups), 1e-3);
  }
}

// The same for conv2d's weight, with and without groups (a group's output
// channels in several blocks of rows when its filters are long).
TEST(ReferenceConv2d, ABf16WeightGivesTheResultOfItsValuesInF32) {
  for (const int64_t groups : {1, 2}) {
    const Tensor x = random_normal({1, 240, 6, 6}, 9);
    const Tensor w = random_normal({260, 240 / groups, 3, 3}, 10).to(DType::BF16);
    const Attrs attrs = conv_attrs({1, 1}, {1, 1}, {1, 1}, groups);
    const Tensor held = run_reference_op(Op{OpKind::Conv2d, {}, kNoValue, attrs}, {x, w});
    const Tensor widened = run_op(OpKind::Conv2d, {x, w.to(DType::F32)}, attrs);
    ASSERT_EQ(held.shape(), widened.shape());
    std::vector<double> expected(widened.data<float>(), widened.data<float>() + widened.numel());
    expect_close_to(held, expected, 1e-3);
  }
}

}  // namespace
}  // namespace meshtest::runtime::testing
