// Reference gradients of the GEMM-based and neural-network ops: matmul and
// linear (Eigen GEMMs, A^T B included), conv2d (im2col GEMM for the weight,
// A^T B + col2im for the input, any groups/stride/padding/dilation),
// pooling, batch_norm (fixed statistics), layer_norm, softmax and embedding.
// Statistics and channel sums accumulate in double, in a fixed order, so a
// run is deterministic whatever the thread count.
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <memory>

#include "core/error.h"
#include "runtime/reference/reference_backward_kernels.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference::grad {

namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using MatrixMap = Eigen::Map<RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

constexpr int64_t kSerialGemmMacs = int64_t{1} << 20;

void gemm_at_serial(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                    int64_t n, int64_t k) {
  MatrixMap cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    cm.setZero();
    return;
  }
  const ConstMatrixMap am(a, k, m, Eigen::OuterStride<>(lda));
  const ConstMatrixMap bm(b, k, n, Eigen::OuterStride<>(ldb));
  cm.noalias() = am.transpose() * bm;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Adds cols [Cg*KH*KW, OH*OW] back onto one group's input gradient [Cg, H, W]
// (the adjoint of im2col). Parallel over channels: each writes its own plane.
void col2im_add(const float* cols, const Conv2dGeometry& g, float* dx) {
  const int64_t plane = g.out_h * g.out_w;
  parallel_ranges(g.channels, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      float* dplane = dx + c * g.height * g.width;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float* row = cols + ((c * g.kh + ki) * g.kw + kj) * plane;
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
            if (ih < 0 || ih >= g.height) continue;
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              const int64_t iw = ow * g.sw - g.pw + kj * g.dw;
              if (iw >= 0 && iw < g.width) dplane[ih * g.width + iw] += row[oh * g.out_w + ow];
            }
          }
        }
      }
    }
  });
}

// Calls fn(input index in the plane) for the real (unpadded) elements of the
// window of output (oh, ow), in window order.
template <class F>
void for_each_window_element(const PoolGeometry& g, int64_t oh, int64_t ow, F&& fn) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.ph + i;
    if (ih < 0 || ih >= g.height) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t iw = ow * g.sw - g.pw + j;
      if (iw >= 0 && iw < g.width) fn(ih * g.width + iw);
    }
  }
}

// dx[N,C,H,W] from fn(x plane, dy plane, dx plane) per N*C plane, in parallel.
template <class F>
Tensor for_each_pool_plane_backward(const Tensor& x, const Tensor& dy, const PoolGeometry& g, F fn) {
  Tensor dx(DType::F32, x.shape());
  const float* px = x.data<float>();
  const float* pdy = dy.data<float>();
  float* pdx = dx.data<float>();
  const int64_t per_plane = std::max<int64_t>(1, g.out_h * g.out_w * g.kh * g.kw);
  parallel_ranges(g.planes, std::max<int64_t>(1, kElementGrain / per_plane), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      fn(px + p * g.height * g.width, pdy + p * g.out_h * g.out_w, pdx + p * g.height * g.width);
    }
  });
  return dx;
}

}  // namespace

void gemm_at(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
             int64_t k) {
  if (m == 0 || n == 0) return;
  if (m * n * k <= kSerialGemmMacs) {
    gemm_at_serial(a, lda, b, ldb, c, ldc, m, n, k);
    return;
  }
  // Split the larger of M (columns of A) and N (columns of B) into a few
  // blocks per thread; each block is one Eigen call.
  const int64_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const int64_t block = std::max<int64_t>(16, ceil_div(extent, 4 * threads));
  tbb::parallel_for(int64_t{0}, ceil_div(extent, block), [&](int64_t i) {
    const int64_t begin = i * block;
    const int64_t size = std::min(block, extent - begin);
    if (split_rows) {
      gemm_at_serial(a + begin, lda, b, ldb, c + begin * ldc, ldc, size, n, k);
    } else {
      gemm_at_serial(a, lda, b + begin, ldb, c + begin, ldc, m, size, k);
    }
  });
}

Grads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy, const Wanted& want) {
  const int64_t m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2);
  const Shape batch_b(b.shape().begin(), b.shape().end() - 2);
  Grads out(2);
  if (shape_numel(batch_b) == 1) {
    // One shared rhs: all lhs batches are the rows of one GEMM each way.
    const int64_t rows = shape_numel(batch_a) * m;
    if (want[0]) {
      out[0] = Tensor(DType::F32, a.shape());
      gemm(dy.data<float>(), n, b.data<float>(), n, true, out[0].data<float>(), k, rows, k, n);
    }
    if (want[1]) {
      out[1] = Tensor(DType::F32, b.shape());
      gemm_at(a.data<float>(), k, dy.data<float>(), n, out[1].data<float>(), n, k, n, rows);
    }
    return out;
  }
  // General case: per broadcast batch entry, then summed back to each operand's batch shape.
  const Shape batch = broadcast_shapes(batch_a, batch_b);
  const int64_t count = shape_numel(batch);
  auto full_shape = [&batch](int64_t r, int64_t c) {
    Shape s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  const Tensor a_full = expand_to(a, full_shape(m, k));
  const Tensor b_full = expand_to(b, full_shape(k, n));
  const float* pa = a_full.data<float>();
  const float* pb = b_full.data<float>();
  const float* pdy = dy.data<float>();
  if (want[0]) {
    Tensor da(DType::F32, full_shape(m, k));
    float* pda = da.data<float>();
    tbb::parallel_for(int64_t{0}, count, [&](int64_t i) {
      gemm(pdy + i * m * n, n, pb + i * k * n, n, true, pda + i * m * k, k, m, k, n);
    });
    out[0] = sum_to_shape(da, a.shape());
  }
  if (want[1]) {
    Tensor db(DType::F32, full_shape(k, n));
    float* pdb = db.data<float>();
    tbb::parallel_for(int64_t{0}, count,
                      [&](int64_t i) { gemm_at(pa + i * m * k, k, pdy + i * m * n, n, pdb + i * k * n, n, k, n, m); });
    out[1] = sum_to_shape(db, b.shape());
  }
  return out;
}

Grads linear_backward(const Tensor& x, const Tensor& w, const Tensor& dy, const Wanted& want) {
  const int64_t k = w.dim(1), n = w.dim(0);
  const int64_t rows = k == 0 ? dy.numel() / std::max<int64_t>(n, 1) : x.numel() / k;
  Grads out(want.size());
  if (want[0]) {  // dx = dy @ w
    out[0] = Tensor(DType::F32, x.shape());
    gemm(dy.data<float>(), n, w.data<float>(), k, false, out[0].data<float>(), k, rows, k, n);
  }
  if (want[1]) {  // dw = dy^T @ x
    out[1] = Tensor(DType::F32, w.shape());
    gemm_at(dy.data<float>(), n, x.data<float>(), k, out[1].data<float>(), k, n, k, rows);
  }
  if (want.size() > 2 && want[2]) out[2] = sum_to_shape(dy, {n});
  return out;
}

Grads conv2d_backward(const Tensor& x, const Tensor& w, const Tensor& dy, const Attrs& attrs, const Wanted& want) {
  const Conv2dGeometry g = conv2d_geometry(x, w, attrs);
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = w.dim(0);
  const int64_t group_out = out_channels / g.groups;
  const int64_t kdim = g.channels * g.kh * g.kw;
  const int64_t plane = g.out_h * g.out_w;
  const int64_t in_plane = g.height * g.width;
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  const float* pdy = dy.data<float>();
  auto x_group = [&](int64_t n, int64_t gi) { return px + (n * channels + gi * g.channels) * in_plane; };
  auto dy_group = [&](int64_t n, int64_t gi) { return pdy + (n * out_channels + gi * group_out) * plane; };
  Grads out(want.size());

  if (want[0]) {
    // cols gradient = W_g^T @ dy_g, folded back onto the input by col2im.
    out[0] = Tensor(DType::F32, x.shape());
    float* pdx = out[0].data<float>();
    tbb::parallel_for(int64_t{0}, batch * g.groups, [&](int64_t task) {
      const int64_t n = task / g.groups, gi = task % g.groups;
      float* dxg = pdx + (n * channels + gi * g.channels) * in_plane;
      const float* wg = pw + gi * group_out * kdim;
      if (g.is_pointwise()) {
        gemm_at(wg, kdim, dy_group(n, gi), plane, dxg, plane, kdim, plane, group_out);
        return;
      }
      std::unique_ptr<float[]> cols(new float[static_cast<size_t>(kdim * plane)]);
      gemm_at(wg, kdim, dy_group(n, gi), plane, cols.get(), plane, kdim, plane, group_out);
      col2im_add(cols.get(), g, dxg);
    });
  }
  if (want[1]) {
    // dW_g = sum over the batch of dy_g @ cols^T; batch entries in order.
    out[1] = Tensor(DType::F32, w.shape());
    float* pdw = out[1].data<float>();
    tbb::parallel_for(int64_t{0}, g.groups, [&](int64_t gi) {
      float* dwg = pdw + gi * group_out * kdim;
      std::unique_ptr<float[]> cols(g.is_pointwise() ? nullptr : new float[static_cast<size_t>(kdim * plane)]);
      std::unique_ptr<float[]> partial(new float[static_cast<size_t>(group_out * kdim)]);
      for (int64_t n = 0; n < batch; ++n) {
        const float* c = x_group(n, gi);
        if (cols) {
          im2col(c, g, cols.get());
          c = cols.get();
        }
        gemm(dy_group(n, gi), plane, c, plane, true, partial.get(), kdim, group_out, kdim, plane);
        for (int64_t i = 0; i < group_out * kdim; ++i) dwg[i] += partial[static_cast<size_t>(i)];
      }
    });
  }
  if (want.size() > 2 && want[2]) {
    out[2] = reduce(OpKind::ReduceSum, dy, {{"axes", std::vector<int64_t>{0, 2, 3}}, {"keepdim", int64_t{0}}});
  }
  return out;
}

Tensor max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x, attrs, "max_pool2d input");
  return for_each_pool_plane_backward(x, dy, g, [&g](const float* in, const float* d, float* dx) {
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        // The forward's winner: the first maximum in window order (a NaN wins).
        float best = -std::numeric_limits<float>::infinity();
        int64_t arg = -1;
        for_each_window_element(g, oh, ow, [&](int64_t i) {
          if (std::isnan(best)) return;
          if (arg < 0 || in[i] > best || std::isnan(in[i])) {
            best = in[i];
            arg = i;
          }
        });
        if (arg >= 0) dx[arg] += d[oh * g.out_w + ow];
      }
    }
  });
}

Tensor avg_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x, attrs, "avg_pool2d input");
  const bool count_pad = attrs.get_int("count_include_pad", 1) != 0;
  return for_each_pool_plane_backward(x, dy, g, [&g, count_pad](const float*, const float* d, float* dx) {
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        int64_t count = 0;
        for_each_window_element(g, oh, ow, [&count](int64_t) { ++count; });
        const int64_t divisor = count_pad ? g.kh * g.kw : count;
        if (divisor == 0) continue;
        const float share = static_cast<float>(d[oh * g.out_w + ow] / static_cast<double>(divisor));
        for_each_window_element(g, oh, ow, [&](int64_t i) { dx[i] += share; });
      }
    }
  });
}

Tensor global_avg_pool2d_backward(const Tensor& x, const Tensor& dy) {
  const int64_t plane = x.dim(2) * x.dim(3);
  const double inv = 1.0 / static_cast<double>(std::max<int64_t>(plane, 1));
  Tensor dx(DType::F32, x.shape());
  const float* pdy = dy.data<float>();
  float* pdx = dx.data<float>();
  parallel_ranges(x.dim(0) * x.dim(1), std::max<int64_t>(1, kElementGrain / std::max<int64_t>(plane, 1)),
                  [&](int64_t p0, int64_t p1) {
                    for (int64_t p = p0; p < p1; ++p) {
                      const auto share = static_cast<float>(pdy[p] * inv);
                      std::fill(pdx + p * plane, pdx + (p + 1) * plane, share);
                    }
                  });
  return dx;
}

Grads batch_norm_backward(const std::vector<Tensor>& in, const Tensor& dy, const Attrs& attrs, const Wanted& want) {
  const Tensor& x = in[0];
  const double eps = attrs.get_float("eps", 1e-5);
  const int64_t batch = x.dim(0), channels = x.dim(1), plane = x.dim(2) * x.dim(3);
  const float* px = x.data<float>();
  const float* pdy = dy.data<float>();
  const float* scale = in[1].data<float>();
  const float* mean = in[3].data<float>();
  const float* var = in[4].data<float>();
  std::vector<double> inv_std(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) inv_std[static_cast<size_t>(c)] = 1.0 / std::sqrt(var[c] + eps);
  Grads out(5);
  if (want[0]) {  // dx = dy * scale / sqrt(var + eps)
    out[0] = Tensor(DType::F32, x.shape());
    float* pdx = out[0].data<float>();
    parallel_ranges(batch * channels, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(plane, 1)),
                    [&](int64_t p0, int64_t p1) {
                      for (int64_t p = p0; p < p1; ++p) {
                        const int64_t c = p % channels;
                        const double a = scale[c] * inv_std[static_cast<size_t>(c)];
                        for (int64_t i = 0; i < plane; ++i) {
                          pdx[p * plane + i] = static_cast<float>(pdy[p * plane + i] * a);
                        }
                      }
                    });
  }
  if (!(want[1] || want[2] || want[3] || want[4])) return out;
  // Per channel, over N, H, W: s1 = sum dy, s2 = sum dy * (x - mean). Then
  // dscale = s2 r, dbias = s1, dmean = -s1 scale r, dvar = -s2 scale r^3 / 2.
  std::vector<double> s1(static_cast<size_t>(channels)), s2(static_cast<size_t>(channels));
  parallel_ranges(channels, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double a = 0.0, b = 0.0;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = (n * channels + c) * plane;
        for (int64_t i = 0; i < plane; ++i) {
          a += pdy[base + i];
          b += pdy[base + i] * (static_cast<double>(px[base + i]) - mean[c]);
        }
      }
      s1[static_cast<size_t>(c)] = a;
      s2[static_cast<size_t>(c)] = b;
    }
  });
  auto per_channel = [&](auto formula) {
    Tensor t(DType::F32, {channels});
    float* p = t.data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      const auto i = static_cast<size_t>(c);
      p[c] = static_cast<float>(formula(s1[i], s2[i], static_cast<double>(scale[c]), inv_std[i]));
    }
    return t;
  };
  if (want[1]) out[1] = per_channel([](double, double b, double, double r) { return b * r; });
  if (want[2]) out[2] = per_channel([](double a, double, double, double) { return a; });
  if (want[3]) out[3] = per_channel([](double a, double, double sc, double r) { return -a * sc * r; });
  if (want[4]) out[4] = per_channel([](double, double b, double sc, double r) { return -0.5 * b * sc * r * r * r; });
  return out;
}

Grads layer_norm_backward(const std::vector<Tensor>& in, const Tensor& dy, const Attrs& attrs, const Wanted& want) {
  const Tensor& x = in[0];
  const float* gamma = in[1].data<float>();
  const double eps = attrs.get_float("eps", 1e-5);
  const int64_t d = x.dim(-1);
  const int64_t rows = d == 0 ? 0 : x.numel() / d;
  const float* px = x.data<float>();
  const float* pdy = dy.data<float>();
  Grads out(3);
  Tensor dx = want[0] ? Tensor(DType::F32, x.shape()) : Tensor();
  // dy * xhat per element: summed over rows into the gamma gradient.
  Tensor dy_xhat = want[1] ? Tensor(DType::F32, x.shape()) : Tensor();
  float* pdx = want[0] ? dx.data<float>() : nullptr;
  float* pdyx = want[1] ? dy_xhat.data<float>() : nullptr;
  parallel_ranges(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(d, 1)), [&](int64_t r0, int64_t r1) {
    std::vector<double> xhat(static_cast<size_t>(d));
    for (int64_t r = r0; r < r1; ++r) {
      const float* row = px + r * d;
      const float* drow = pdy + r * d;
      double sum = 0.0;
      for (int64_t i = 0; i < d; ++i) sum += row[i];
      const double mean = sum / static_cast<double>(d);
      double sq = 0.0;
      for (int64_t i = 0; i < d; ++i) sq += (row[i] - mean) * (row[i] - mean);
      const double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
      double m1 = 0.0, m2 = 0.0;  // means of dxhat and dxhat * xhat
      for (int64_t i = 0; i < d; ++i) {
        xhat[static_cast<size_t>(i)] = (row[i] - mean) * inv;
        const double dxhat = static_cast<double>(drow[i]) * gamma[i];
        m1 += dxhat;
        m2 += dxhat * xhat[static_cast<size_t>(i)];
        if (pdyx != nullptr) pdyx[r * d + i] = static_cast<float>(drow[i] * xhat[static_cast<size_t>(i)]);
      }
      m1 /= static_cast<double>(d);
      m2 /= static_cast<double>(d);
      if (pdx == nullptr) continue;
      for (int64_t i = 0; i < d; ++i) {
        const double dxhat = static_cast<double>(drow[i]) * gamma[i];
        pdx[r * d + i] = static_cast<float>(inv * (dxhat - m1 - xhat[static_cast<size_t>(i)] * m2));
      }
    }
  });
  if (want[0]) out[0] = dx;
  if (want[1]) out[1] = sum_to_shape(dy_xhat, {d});
  if (want[2]) out[2] = sum_to_shape(dy, {d});
  return out;
}

Tensor softmax_backward(const Tensor& y, const Tensor& dy, const Attrs& attrs) {
  const int64_t axis = normalize_axis(attrs.get_int("axis", -1), y.rank());
  const int64_t len = y.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < y.rank(); ++d) inner *= y.dim(d);
  const int64_t lines = len == 0 ? 0 : y.numel() / len;
  Tensor dx(DType::F32, y.shape());
  const float* py = y.data<float>();
  const float* pdy = dy.data<float>();
  float* pdx = dx.data<float>();
  // dx = y * (dy - sum(dy * y)) along the axis.
  parallel_ranges(lines, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(len, 1)), [&](int64_t l0, int64_t l1) {
    for (int64_t l = l0; l < l1; ++l) {
      const int64_t base = (l / inner) * len * inner + l % inner;
      double dot = 0.0;
      for (int64_t i = 0; i < len; ++i) dot += static_cast<double>(pdy[base + i * inner]) * py[base + i * inner];
      for (int64_t i = 0; i < len; ++i) {
        const int64_t at = base + i * inner;
        pdx[at] = static_cast<float>(py[at] * (pdy[at] - dot));
      }
    }
  });
  return dx;
}

Tensor embedding_backward(const Tensor& ids, const Shape& table_shape, const Tensor& dy) {
  const Tensor ids64 = ids.to(DType::I64);
  const int64_t* pid = ids64.data<int64_t>();
  const int64_t count = ids64.numel();
  const int64_t vocab = table_shape.at(0), width = table_shape.at(1);
  for (int64_t i = 0; i < count; ++i) {
    if (pid[i] < 0 || pid[i] >= vocab) {
      throw RuntimeError("id " + std::to_string(pid[i]) + " out of range [0, " + std::to_string(vocab) + ")");
    }
  }
  Tensor dtable(DType::F32, table_shape);
  const float* pdy = dy.data<float>();
  float* pt = dtable.data<float>();
  // Split over columns: every task visits the ids in order (deterministic sums).
  parallel_ranges(width, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(count, 1)),
                  [&](int64_t j0, int64_t j1) {
                    for (int64_t i = 0; i < count; ++i) {
                      float* row = pt + pid[i] * width;
                      const float* src = pdy + i * width;
                      for (int64_t j = j0; j < j1; ++j) row[j] += src[j];
                    }
                  });
  return dtable;
}

}  // namespace meshtest::runtime::reference::grad
