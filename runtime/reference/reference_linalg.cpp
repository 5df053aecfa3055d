// Reference GEMM-based kernels: matmul (broadcast batch dims), linear, and
// conv2d as im2col + GEMM per (batch, group). GEMM is Eigen (single-threaded,
// EIGEN_DONT_PARALLELIZE) over row-major maps; parallelism comes from TBB.
// linear's and conv2d's weight may be bf16 (the per-op check passes a
// device's weight as it is held): widened a cache-sized block of rows at a
// time, with the same f32 result.
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using MatrixMap = Eigen::Map<RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

// Below this many multiply-adds a GEMM runs as one Eigen call.
constexpr int64_t kSerialGemmMacs = int64_t{1} << 20;

void gemm_serial(const float* a, int64_t lda, const float* b, int64_t ldb, bool b_transposed, float* c, int64_t ldc,
                 int64_t m, int64_t n, int64_t k) {
  MatrixMap cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    cm.setZero();
    return;
  }
  const ConstMatrixMap am(a, m, k, Eigen::OuterStride<>(lda));
  if (b_transposed) {
    const ConstMatrixMap bm(b, n, k, Eigen::OuterStride<>(ldb));
    cm.noalias() = am * bm.transpose();
  } else {
    const ConstMatrixMap bm(b, k, n, Eigen::OuterStride<>(ldb));
    cm.noalias() = am * bm;
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A weight's rows are widened to f32 this many elements at a time when it is
// bf16 (a device's weight as the per-op check passes it): a block stays in
// cache for its GEMM, and no f32 copy of the whole weight is made.
constexpr int64_t kWeightBlockElements = int64_t{1} << 18;

// Rows of a weight matrix with `k` columns per row, f32 or bf16.
void require_weight(const Tensor& w, const char* what) {
  if (w.dtype() != DType::F32 && w.dtype() != DType::BF16) {
    throw RuntimeError(std::string(what) + " must be f32 or bf16, got " + std::string(dtype_name(w.dtype())));
  }
}

// Rows [first, first + rows) of `w` as f32: in place for an f32 weight,
// widened into `scratch` for a bf16 one (exact: bf16 values are f32 values).
const float* weight_rows(const Tensor& w, int64_t first, int64_t rows, int64_t k, Tensor& scratch) {
  if (w.dtype() == DType::F32) return w.data<float>() + first * k;
  const int64_t count = rows * k;
  // From the buffer pool, not zeroed (every element is written): no fresh
  // pages and no memset per block.
  if (!scratch.defined() || scratch.numel() < count) scratch = Tensor::uninitialized(DType::F32, {count});
  float* out = scratch.data<float>();
  const uint16_t* p = w.data<uint16_t>() + first * k;
  for (int64_t i = 0; i < count; ++i) out[i] = bf16_to_f32(p[i]);
  return out;
}

// Rows per block of a weight with `k` columns: at least 64, a few of
// Eigen's register-blocked row panels.
int64_t weight_block_rows(int64_t k) { return std::max<int64_t>(64, kWeightBlockElements / std::max<int64_t>(k, 1)); }

// Adds bias[col] to every row of c[rows, cols].
void add_row_bias(float* c, int64_t rows, int64_t cols, const float* bias) {
  parallel_ranges(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = c + r * cols;
      for (int64_t j = 0; j < cols; ++j) row[j] += bias[j];
    }
  });
}

// Element offsets of each flat index of `out_batch` into an operand with
// batch shape `batch` (broadcast) and `matrix` elements per batch entry.
std::vector<int64_t> batch_offsets(const Shape& batch, const Shape& out_batch, int64_t matrix) {
  const int64_t count = shape_numel(out_batch);
  std::vector<int64_t> strides(out_batch.size(), 0);
  const std::vector<int64_t> own = shape_strides(batch);
  const size_t lead = out_batch.size() - batch.size();
  for (size_t i = 0; i < batch.size(); ++i) strides[lead + i] = batch[i] == 1 ? 0 : own[i] * matrix;
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rem = flat;
    int64_t off = 0;
    for (size_t d = out_batch.size(); d-- > 0;) {
      off += (rem % out_batch[d]) * strides[d];
      rem /= out_batch[d];
    }
    offsets[static_cast<size_t>(flat)] = off;
  }
  return offsets;
}

}  // namespace

void im2col(const float* x, const Conv2dGeometry& g, float* cols) {
  const int64_t rows = g.channels * g.kh * g.kw;
  const int64_t plane = g.out_h * g.out_w;
  parallel_ranges(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(plane, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / (g.kh * g.kw);
      const int64_t ki = (r / g.kw) % g.kh;
      const int64_t kj = r % g.kw;
      const int64_t col_off = kj * g.dw - g.pw;
      // Output columns whose input column lies inside [0, W).
      const int64_t lo = std::min(g.out_w, col_off >= 0 ? 0 : ceil_div(-col_off, g.sw));
      const int64_t hi =
          std::max(lo, std::min(g.out_w, g.width - 1 - col_off < 0 ? 0 : (g.width - 1 - col_off) / g.sw + 1));
      float* dst = cols + r * plane;
      for (int64_t oh = 0; oh < g.out_h; ++oh, dst += g.out_w) {
        const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
        if (ih < 0 || ih >= g.height) {
          std::fill(dst, dst + g.out_w, 0.0f);
          continue;
        }
        const float* src = x + (c * g.height + ih) * g.width + col_off;
        std::fill(dst, dst + lo, 0.0f);
        if (g.sw == 1) {
          std::copy(src + lo, src + hi, dst + lo);
        } else {
          for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * g.sw];
        }
        std::fill(dst + hi, dst + g.out_w, 0.0f);
      }
    }
  });
}

void gemm(const float* a, int64_t lda, const float* b, int64_t ldb, bool b_transposed, float* c, int64_t ldc, int64_t m,
          int64_t n, int64_t k) {
  if (m == 0 || n == 0) return;
  if (m * n * k <= kSerialGemmMacs) {
    gemm_serial(a, lda, b, ldb, b_transposed, c, ldc, m, n, k);
    return;
  }
  // Split the larger of M and N into a few blocks per thread (load balance on
  // a shared machine); each block is one Eigen call.
  const int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const int64_t block = std::max<int64_t>(split_rows ? 16 : 64, ceil_div(extent, 4 * threads));
  const int64_t blocks = ceil_div(extent, block);
  tbb::parallel_for(int64_t{0}, blocks, [&](int64_t i) {
    const int64_t begin = i * block;
    const int64_t size = std::min(block, extent - begin);
    if (split_rows) {
      gemm_serial(a + begin * lda, lda, b, ldb, b_transposed, c + begin * ldc, ldc, size, n, k);
    } else {
      const float* b_block = b_transposed ? b + begin * ldb : b + begin;
      gemm_serial(a, lda, b_block, ldb, b_transposed, c + begin, ldc, m, size, k);
    }
  });
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  require_f32(a, "matmul lhs");
  require_f32(b, "matmul rhs");
  if (a.rank() < 2 || b.rank() < 2) throw RuntimeError("matmul operands must have rank >= 2");
  const int64_t m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
  if (b.dim(-2) != k) {
    throw RuntimeError("matmul contraction mismatch: " + shape_to_string(a.shape()) + " @ " +
                       shape_to_string(b.shape()));
  }
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2);
  const Shape batch_b(b.shape().begin(), b.shape().end() - 2);
  const Shape batch = broadcast_shapes(batch_a, batch_b);
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = Tensor::uninitialized(DType::F32, out_shape);  // every element written
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  if (shape_numel(batch_b) == 1) {
    // One shared rhs: fold all lhs batches into the rows of a single GEMM.
    gemm(pa, k, pb, n, false, po, n, shape_numel(batch_a) * m, n, k);
    return out;
  }
  const std::vector<int64_t> off_a = batch_offsets(batch_a, batch, m * k);
  const std::vector<int64_t> off_b = batch_offsets(batch_b, batch, k * n);
  tbb::parallel_for(size_t{0}, off_a.size(), [&](size_t i) {
    gemm(pa + off_a[i], k, pb + off_b[i], n, false, po + static_cast<int64_t>(i) * m * n, n, m, n, k);
  });
  return out;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias) {
  require_f32(x, "linear input");
  require_weight(w, "linear weight");
  if (x.rank() < 1 || w.rank() != 2 || w.dim(1) != x.dim(-1)) {
    throw RuntimeError("linear weight " + shape_to_string(w.shape()) + " does not match input " +
                       shape_to_string(x.shape()));
  }
  const int64_t k = w.dim(1), n = w.dim(0);
  const int64_t m = k == 0 ? shape_numel(Shape(x.shape().begin(), x.shape().end() - 1)) : x.numel() / k;
  Shape out_shape = x.shape();
  out_shape.back() = n;
  Tensor out = Tensor::uninitialized(DType::F32, out_shape);  // every element written
  if (w.dtype() == DType::F32) {
    gemm(x.data<float>(), k, w.data<float>(), k, true, out.data<float>(), n, m, n, k);
  } else {  // a bf16 weight: a block of its rows (output columns) at a time
    const int64_t rows = weight_block_rows(k);
    tbb::parallel_for(int64_t{0}, ceil_div(n, rows), [&](int64_t b) {
      const int64_t first = b * rows, count = std::min(rows, n - first);
      Tensor scratch;
      const float* block = weight_rows(w, first, count, k, scratch);
      gemm_serial(x.data<float>(), k, block, k, true, out.data<float>() + first, n, m, count, k);
    });
  }
  if (bias != nullptr) {
    require_f32(*bias, "linear bias");
    add_row_bias(out.data<float>(), m, n, bias->data<float>());
  }
  return out;
}

Conv2dGeometry conv2d_geometry(const Tensor& x, const Tensor& w, const Attrs& attrs) {
  if (x.rank() != 4 || w.rank() != 4) throw RuntimeError("conv2d operands must have rank 4");
  const int64_t groups = attrs.get_int("groups", 1);
  const int64_t channels = x.dim(1), out_channels = w.dim(0);
  if (groups <= 0 || channels % groups != 0 || out_channels % groups != 0 || w.dim(1) * groups != channels) {
    throw RuntimeError("conv2d weight " + shape_to_string(w.shape()) + " with groups=" + std::to_string(groups) +
                       " does not match input " + shape_to_string(x.shape()));
  }
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  const auto dil = pair_attr(attrs, "dilation", 1);
  Conv2dGeometry g{};
  g.groups = groups;
  g.channels = channels / groups;
  g.height = x.dim(2);
  g.width = x.dim(3);
  g.kh = w.dim(2);
  g.kw = w.dim(3);
  g.sh = stride[0];
  g.sw = stride[1];
  g.ph = pad[0];
  g.pw = pad[1];
  g.dh = dil[0];
  g.dw = dil[1];
  if (g.sh <= 0 || g.sw <= 0 || g.dh <= 0 || g.dw <= 0 || g.ph < 0 || g.pw < 0) {
    throw RuntimeError("conv2d stride and dilation must be positive, padding non-negative");
  }
  g.out_h = (g.height + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.out_w = (g.width + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  if (g.out_h <= 0 || g.out_w <= 0) throw RuntimeError("conv2d window larger than padded input");
  return g;
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs) {
  require_f32(x, "conv2d input");
  require_weight(w, "conv2d weight");
  if (bias != nullptr) require_f32(*bias, "conv2d bias");
  const Conv2dGeometry g = conv2d_geometry(x, w, attrs);
  const int64_t groups = g.groups;
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = w.dim(0);

  Tensor out = Tensor::uninitialized(DType::F32, {batch, out_channels, g.out_h, g.out_w});  // every element written
  const int64_t group_out = out_channels / groups;
  const int64_t kdim = g.channels * g.kh * g.kw;
  const int64_t plane = g.out_h * g.out_w;
  const bool direct = g.is_pointwise();
  const float* px = x.data<float>();
  const float* pbias = bias != nullptr ? bias->data<float>() : nullptr;
  float* po = out.data<float>();
  // An f32 weight's group is one GEMM; a bf16 one's, a block of rows at a time.
  const int64_t block_rows = w.dtype() == DType::F32 ? std::max<int64_t>(group_out, 1) : weight_block_rows(kdim);

  tbb::parallel_for(int64_t{0}, batch * groups, [&](int64_t task) {
    const int64_t n = task / groups;
    const int64_t gi = task % groups;
    const float* xg = px + (n * channels + gi * g.channels) * g.height * g.width;
    Tensor buffer;
    const float* cols = xg;  // a 1x1 stride-1 unpadded conv reads its input as is
    if (!direct) {
      buffer = Tensor::uninitialized(DType::F32, {kdim * plane});
      im2col(xg, g, buffer.data<float>());
      cols = buffer.data<float>();
    }
    float* og = po + (n * out_channels + gi * group_out) * plane;
    Tensor scratch;
    for (int64_t first = 0; first < group_out; first += block_rows) {
      const int64_t rows = std::min(block_rows, group_out - first);
      const float* block = weight_rows(w, gi * group_out + first, rows, kdim, scratch);
      gemm(block, kdim, cols, plane, false, og + first * plane, plane, rows, plane, kdim);
    }
    if (pbias != nullptr) {
      for (int64_t o = 0; o < group_out; ++o) {
        const float bv = pbias[gi * group_out + o];
        float* row = og + o * plane;
        for (int64_t p = 0; p < plane; ++p) row[p] += bv;
      }
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
