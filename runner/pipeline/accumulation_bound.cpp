// The per-op check's accumulation bound: per-element magnitudes of
// matmul/linear/conv2d from norms of rows, columns and patches (Hoelder), of
// reductions from the reference reduction of |x|, and the worst ratio of the
// device's error to the bound.
#include "runner/pipeline/accumulation_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel.h"
#include "runtime/reference/reference_executor.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runner {

namespace {

// |v|_1, |v|_2, |v|_inf of one vector (a row, a column, a patch).
struct Norms {
  double l1 = 0.0, l2 = 0.0, linf = 0.0;
  void add(double v) {
    const double a = std::fabs(v);
    l1 += a;
    l2 += a * a;
    linf = std::max(linf, a);
  }
  void finish() { l2 = std::sqrt(l2); }
};

// An upper bound of sum_k |a_k||b_k| (Hoelder's inequality, three ways).
double dot_magnitude(const Norms& a, const Norms& b) { return std::min({a.l2 * b.l2, a.l1 * b.linf, a.linf * b.l1}); }

// Norms of p[0..k), in lanes (independent sums, so the loop vectorizes).
Norms norms_of(const float* p, int64_t k) {
  constexpr int kLanes = 8;
  double l1[kLanes] = {}, l2[kLanes] = {}, linf[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double a = std::fabs(static_cast<double>(p[i + l]));
      l1[l] += a;
      l2[l] += a * a;
      linf[l] = std::max(linf[l], a);
    }
  }
  Norms n;
  for (; i < k; ++i) n.add(p[i]);
  for (int l = 0; l < kLanes; ++l) {
    n.l1 += l1[l];
    n.l2 += l2[l];
    n.linf = std::max(n.linf, linf[l]);
  }
  n.finish();
  return n;
}

// Norms of the `rows` rows of a row-major [rows, k] block.
std::vector<Norms> row_norms(const float* p, int64_t rows, int64_t k) {
  std::vector<Norms> out(static_cast<size_t>(rows));
  parallel_ranges(rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) out[static_cast<size_t>(r)] = norms_of(p + r * k, k);
  });
  return out;
}

// s[i * n + j] = dot_magnitude(rows[i], cols[j]) (+ |bias[j]|), in parallel over rows.
void fill_magnitudes(const std::vector<Norms>& rows, const std::vector<Norms>& cols, const float* bias, double* s) {
  const int64_t n = static_cast<int64_t>(cols.size());
  parallel_ranges(static_cast<int64_t>(rows.size()), 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const Norms& a = rows[static_cast<size_t>(i)];
      for (int64_t j = 0; j < n; ++j) {
        s[i * n + j] = dot_magnitude(a, cols[static_cast<size_t>(j)]) + (bias != nullptr ? std::fabs(bias[j]) : 0.0);
      }
    }
  });
}

// Norms of the `cols` columns of a row-major [k, cols] block.
std::vector<Norms> column_norms(const float* p, int64_t k, int64_t cols) {
  std::vector<Norms> out(static_cast<size_t>(cols));
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t c = 0; c < cols; ++c) out[static_cast<size_t>(c)].add(p[i * cols + c]);
  }
  for (Norms& n : out) n.finish();
  return out;
}

// Flat offsets of each broadcast batch of one operand (batch dims of `own`
// broadcast to `batch`), `block` elements per matrix.
std::vector<int64_t> broadcast_offsets(const Shape& own, const Shape& batch, int64_t block) {
  const int64_t count = shape_numel(batch);
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  const size_t lead = batch.size() - own.size();
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, offset = 0, stride = block;
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t index = rest % batch[d];
      rest /= batch[d];
      if (d >= lead && own[d - lead] != 1) offset += index * stride;
      if (d >= lead) stride *= own[d - lead];
    }
    offsets[static_cast<size_t>(i)] = offset;
  }
  return offsets;
}

// The result's magnitudes (one per element) and the accumulation length.
struct Magnitudes {
  std::vector<double> s;
  int64_t k = 0;
};

std::optional<Magnitudes> matmul_magnitudes(const Tensor& a, const Tensor& b, const Tensor& out) {
  if (a.rank() < 2 || b.rank() < 2) return std::nullopt;
  const int64_t m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  if (batch.size() < std::max(batch_a.size(), batch_b.size())) return std::nullopt;
  const std::vector<int64_t> off_a = broadcast_offsets(batch_a, batch, m * k);
  const std::vector<int64_t> off_b = broadcast_offsets(batch_b, batch, k * n);
  Magnitudes mags{std::vector<double>(static_cast<size_t>(out.numel())), k};
  for (size_t bi = 0; bi < off_a.size(); ++bi) {
    const std::vector<Norms> rows = row_norms(a.data<float>() + off_a[bi], m, k);
    const std::vector<Norms> cols = column_norms(b.data<float>() + off_b[bi], k, n);
    fill_magnitudes(rows, cols, nullptr, mags.s.data() + static_cast<int64_t>(bi) * m * n);
  }
  return mags;
}

// x[..., K] times w[N, K] transposed, plus bias[N].
std::optional<Magnitudes> linear_magnitudes(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor& out) {
  if (x.rank() < 1 || w.rank() != 2 || w.dim(1) != x.dim(-1)) return std::nullopt;
  const int64_t k = w.dim(1), m = k == 0 ? 0 : x.numel() / k;
  const std::vector<Norms> rows = row_norms(x.data<float>(), m, k);
  const std::vector<Norms> cols = row_norms(w.data<float>(), w.dim(0), k);
  Magnitudes mags{std::vector<double>(static_cast<size_t>(out.numel())), k + (bias != nullptr)};
  fill_magnitudes(rows, cols, bias != nullptr ? bias->data<float>() : nullptr, mags.s.data());
  return mags;
}

// Each output position's input patch (per batch and group) against each
// output channel's filter. A patch's norms are sums (and a maximum) over its
// channels and window, so they are built from each input position's sums over
// the channels (|x|, x^2, max |x|: one pass over the input), then added over
// the window: C + KH*KW terms per position instead of C*KH*KW.
std::optional<Magnitudes> conv2d_magnitudes(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs,
                                            const Tensor& out) {
  const runtime::reference::Conv2dGeometry g = runtime::reference::conv2d_geometry(x, w, attrs);
  const int64_t batch = x.dim(0), out_channels = w.dim(0), group_out = out_channels / g.groups;
  const int64_t kdim = g.channels * g.kh * g.kw, plane = g.out_h * g.out_w, pixels = g.height * g.width;
  if (out.numel() != batch * out_channels * plane) return std::nullopt;
  const std::vector<Norms> filters = row_norms(w.data<float>(), out_channels, kdim);
  Magnitudes mags{std::vector<double>(static_cast<size_t>(out.numel())), kdim + (bias != nullptr)};
  const float* px = x.data<float>();
  const float* pb = bias != nullptr ? bias->data<float>() : nullptr;
  // In parallel over batch x groups when there are several (depthwise), else
  // over input positions and output rows.
  const int64_t tasks = batch * g.groups;
  auto split = [tasks](int64_t count, int64_t grain, const auto& fn) {
    if (tasks > 1)
      fn(int64_t{0}, count);
    else
      parallel_ranges(count, grain, fn);
  };
  parallel_ranges(tasks, 1, [&](int64_t first_task, int64_t last_task) {
    for (int64_t task = first_task; task < last_task; ++task) {
      const int64_t n = task / g.groups, gi = task % g.groups;
      const float* xg = px + (n * g.groups + gi) * g.channels * pixels;
      // Per input position, over this group's channels: sum |x|, sum x^2, max |x|.
      std::vector<double> l1(static_cast<size_t>(pixels)), l2(static_cast<size_t>(pixels));
      std::vector<float> linf(static_cast<size_t>(pixels));
      split(pixels, 256, [&](int64_t begin, int64_t end) {
        for (int64_t c = 0; c < g.channels; ++c) {
          const float* xc = xg + c * pixels;
          for (int64_t i = begin; i < end; ++i) {
            const float a = std::fabs(xc[i]);
            l1[static_cast<size_t>(i)] += a;
            l2[static_cast<size_t>(i)] += static_cast<double>(a) * a;
            linf[static_cast<size_t>(i)] = std::max(linf[static_cast<size_t>(i)], a);
          }
        }
      });
      split(g.out_h, 1, [&](int64_t begin, int64_t end) {
        std::vector<Norms> patches(static_cast<size_t>(g.out_w));
        for (int64_t oh = begin; oh < end; ++oh) {
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            Norms p;
            for (int64_t r = 0; r < g.kh; ++r) {
              const int64_t ih = oh * g.sh - g.ph + r * g.dh;
              if (ih < 0 || ih >= g.height) continue;
              for (int64_t q = 0; q < g.kw; ++q) {
                const int64_t iw = ow * g.sw - g.pw + q * g.dw;
                if (iw < 0 || iw >= g.width) continue;
                const size_t at = static_cast<size_t>(ih * g.width + iw);
                p.l1 += l1[at];
                p.l2 += l2[at];
                p.linf = std::max(p.linf, static_cast<double>(linf[at]));
              }
            }
            p.finish();
            patches[static_cast<size_t>(ow)] = p;
          }
          for (int64_t o = 0; o < group_out; ++o) {
            const int64_t oc = gi * group_out + o;
            const double b = pb != nullptr ? std::fabs(pb[oc]) : 0.0;
            double* s = mags.s.data() + (n * out_channels + oc) * plane + oh * g.out_w;
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              s[ow] = dot_magnitude(patches[static_cast<size_t>(ow)], filters[static_cast<size_t>(oc)]) + b;
            }
          }
        }
      });
    }
  });
  return mags;
}

// A reduction's magnitude is the same reduction of |x|.
std::optional<Magnitudes> reduction_magnitudes(const DeviceInstr& instr, const Tensor& x, const Tensor& out) {
  if (out.numel() == 0) return std::nullopt;
  Tensor abs_x(DType::F32, x.shape());
  const float* px = x.data<float>();
  float* pa = abs_x.data<float>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) pa[i] = std::fabs(px[i]);
  const Tensor sum = runtime::run_reference_op(Op{instr.kind, {}, kNoValue, instr.attrs}, {abs_x});
  if (sum.numel() != out.numel()) return std::nullopt;
  const int64_t count = out.numel();
  Magnitudes mags{std::vector<double>(static_cast<size_t>(count)), n / count};
  const float* ps = sum.data<float>();
  for (int64_t i = 0; i < count; ++i) mags.s[static_cast<size_t>(i)] = ps[i];
  return mags;
}

bool all_f32(const std::vector<Tensor>& operands) {
  return std::all_of(operands.begin(), operands.end(), [](const Tensor& t) { return t.dtype() == DType::F32; });
}

}  // namespace

double gamma_n(int64_t n) {
  const double nu = static_cast<double>(n) * kF32UnitRoundoff;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

double unit_roundoff(DType result) {
  switch (result) {
    case DType::BF16:
      return 0x1p-8;
    case DType::F32:
      return kF32UnitRoundoff;
    default:
      return 0.0;
  }
}

AccumulationBound::AccumulationBound(int64_t k, DType result)
    : u_out_(unit_roundoff(result)),
      per_magnitude_(2.0 * (1.0 + u_out_) * gamma_n(k + 1)),
      floor_(static_cast<double>(k + 1) * 0x1p-149) {}

std::optional<AccumulationCheck> check_accumulation(const DeviceInstr& instr, const std::vector<Tensor>& operands,
                                                    const Tensor& device, const Tensor& reference, DType result_dtype) {
  if (instr.attrs.has("fidelity_phases") || operands.empty() || !all_f32(operands)) return std::nullopt;
  if (device.dtype() != DType::F32 || reference.dtype() != DType::F32 || device.shape() != reference.shape()) {
    return std::nullopt;
  }
  const Tensor* bias = operands.size() > 2 ? &operands[2] : nullptr;
  std::optional<Magnitudes> mags;
  switch (instr.kind) {
    case OpKind::Matmul:
      if (operands.size() == 2) mags = matmul_magnitudes(operands[0], operands[1], reference);
      break;
    case OpKind::Linear:
      if (operands.size() >= 2) mags = linear_magnitudes(operands[0], operands[1], bias, reference);
      break;
    case OpKind::Conv2d:
      if (operands.size() >= 2) mags = conv2d_magnitudes(operands[0], operands[1], bias, instr.attrs, reference);
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
      if (operands.size() == 1) mags = reduction_magnitudes(instr, operands[0], reference);
      break;
    default:
      break;
  }
  if (!mags) return std::nullopt;
  AccumulationCheck check;
  check.k = mags->k;
  const AccumulationBound bound_of(mags->k, result_dtype);
  const float* d = device.data<float>();
  const float* r = reference.data<float>();
  const double* s = mags->s.data();
  auto ratio = [&](int64_t i) {
    const double error = std::fabs(static_cast<double>(d[i]) - static_cast<double>(r[i]));
    return error / bound_of(r[i], s[i]);  // NaN for a NaN element
  };
  // The worst ratio in lanes (branch-free, so it vectorizes; a NaN makes
  // its lane's maximum NaN through !(x <= m)), then its first element.
  const int64_t n = reference.numel();
  constexpr int kLanes = 8;
  double worst[kLanes] = {};
  const int64_t whole = n / kLanes * kLanes;
  for (int64_t i = 0; i < whole; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double x = ratio(i + l);
      worst[l] = !(x <= worst[l]) ? x : worst[l];
    }
  }
  for (int64_t i = whole; i < n; ++i) {
    const double x = ratio(i);
    worst[0] = !(x <= worst[0]) ? x : worst[0];
  }
  for (double w : worst) check.worst_ratio = !(w <= check.worst_ratio) ? w : check.worst_ratio;
  if (std::isnan(check.worst_ratio)) check.worst_ratio = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n && check.worst_ratio > 0.0; ++i) {
    const double x = ratio(i);
    if (std::isnan(x) || x == check.worst_ratio) {
      check.worst_element = i;
      break;
    }
  }
  return check;
}

}  // namespace meshtest::runner
