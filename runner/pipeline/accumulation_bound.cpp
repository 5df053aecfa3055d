// The per-op check's accumulation bound: every element first against the
// bound's rounding term alone (which holds all but a few); the magnitudes of
// those few, from norms of their row and column or input patch and filter
// (Hoelder), or the reference reduction of |x|; the worst ratio of the
// device's error to the bound.
#include "runner/pipeline/accumulation_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "core/parallel.h"
#include "core/vector_lanes.h"
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

// Norms of row `row` (k elements) of a row-major f32 or bf16 matrix.
Norms row_norms(const Tensor& m, int64_t row, int64_t k) {
  if (m.dtype() == DType::F32) return norms_of(m.data<float>() + row * k, k);
  Norms n;
  const uint16_t* p = m.data<uint16_t>() + row * k;
  for (int64_t i = 0; i < k; ++i) n.add(bf16_to_f32(p[i]));
  n.finish();
  return n;
}

// Norms of k elements `stride` apart (a column of a row-major matrix).
Norms strided_norms(const float* p, int64_t k, int64_t stride) {
  Norms n;
  for (int64_t i = 0; i < k; ++i) n.add(p[i * stride]);
  n.finish();
  return n;
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

// A contraction's accumulation length and the magnitude of one result
// element (an upper bound of sum_k |a_k b_k| (+ |bias|)), computed on
// demand: the check needs it only for the few elements the bound's rounding
// term alone does not hold.
struct Contraction {
  int64_t k = 0;
  std::function<double(int64_t)> magnitude;
};

std::optional<Contraction> matmul_contraction(const Tensor& a, const Tensor& b, const Tensor& out) {
  if (a.rank() < 2 || b.rank() < 2) return std::nullopt;
  const int64_t m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  if (batch.size() < std::max(batch_a.size(), batch_b.size()) || out.numel() != shape_numel(batch) * m * n) {
    return std::nullopt;
  }
  auto off_a = std::make_shared<const std::vector<int64_t>>(broadcast_offsets(batch_a, batch, m * k));
  auto off_b = std::make_shared<const std::vector<int64_t>>(broadcast_offsets(batch_b, batch, k * n));
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  return Contraction{k, [=](int64_t e) {
                       const size_t bi = static_cast<size_t>(e / (m * n));
                       const int64_t i = e / n % m, j = e % n;
                       return dot_magnitude(norms_of(pa + (*off_a)[bi] + i * k, k),
                                            strided_norms(pb + (*off_b)[bi] + j, k, n));
                     }};
}

// x[..., K] times w[N, K] transposed, plus bias[N].
std::optional<Contraction> linear_contraction(const Tensor& x, const Tensor& w, const Tensor* bias) {
  if (x.rank() < 1 || w.rank() != 2 || w.dim(1) != x.dim(-1)) return std::nullopt;
  const int64_t k = w.dim(1), n = w.dim(0);
  const float* px = x.data<float>();
  const float* pbias = bias != nullptr ? bias->data<float>() : nullptr;
  return Contraction{k + (bias != nullptr), [=](int64_t e) {
                       const int64_t row = e / n, col = e % n;
                       return dot_magnitude(norms_of(px + row * k, k), row_norms(w, col, k)) +
                              (pbias != nullptr ? std::fabs(static_cast<double>(pbias[col])) : 0.0);
                     }};
}

// One output element's input patch (its batch entry and group's channels
// under the window, padding left out) against its output channel's filter.
std::optional<Contraction> conv2d_contraction(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs,
                                              const Tensor& out) {
  const runtime::reference::Conv2dGeometry g = runtime::reference::conv2d_geometry(x, w, attrs);
  const int64_t batch = x.dim(0), out_channels = w.dim(0), group_out = out_channels / g.groups;
  const int64_t kdim = g.channels * g.kh * g.kw, plane = g.out_h * g.out_w, pixels = g.height * g.width;
  if (out.numel() != batch * out_channels * plane) return std::nullopt;
  const float* px = x.data<float>();
  const float* pbias = bias != nullptr ? bias->data<float>() : nullptr;
  return Contraction{kdim + (bias != nullptr), [=](int64_t e) {
                       const int64_t ow = e % g.out_w, oh = e / g.out_w % g.out_h;
                       const int64_t oc = e / plane % out_channels, n = e / (plane * out_channels);
                       const int64_t gi = oc / group_out;
                       Norms patch;
                       for (int64_t c = 0; c < g.channels; ++c) {
                         const float* xc = px + ((n * g.groups + gi) * g.channels + c) * pixels;
                         for (int64_t r = 0; r < g.kh; ++r) {
                           const int64_t ih = oh * g.sh - g.ph + r * g.dh;
                           if (ih < 0 || ih >= g.height) continue;
                           for (int64_t q = 0; q < g.kw; ++q) {
                             const int64_t iw = ow * g.sw - g.pw + q * g.dw;
                             if (iw >= 0 && iw < g.width) patch.add(xc[ih * g.width + iw]);
                           }
                         }
                       }
                       patch.finish();
                       return dot_magnitude(patch, row_norms(w, oc, kdim)) +
                              (pbias != nullptr ? std::fabs(static_cast<double>(pbias[oc])) : 0.0);
                     }};
}

// A reduction's magnitude is the same reduction of |x| (one pass: computed
// for every element up front).
std::optional<Contraction> reduction_contraction(const DeviceInstr& instr, const Tensor& x, const Tensor& out) {
  if (out.numel() == 0) return std::nullopt;
  Tensor abs_x(DType::F32, x.shape());
  const float* px = x.data<float>();
  float* pa = abs_x.data<float>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) pa[i] = std::fabs(px[i]);
  const Tensor sum = runtime::run_reference_op(Op{instr.kind, {}, kNoValue, instr.attrs}, {abs_x});
  if (sum.numel() != out.numel()) return std::nullopt;
  return Contraction{n / out.numel(), [sum](int64_t e) { return static_cast<double>(sum.data<float>()[e]); }};
}

std::optional<Contraction> contraction_of(const DeviceInstr& instr, const std::vector<Tensor>& operands,
                                          const Tensor& reference) {
  const Tensor* bias = operands.size() > 2 ? &operands[2] : nullptr;
  switch (instr.kind) {
    case OpKind::Matmul:
      if (operands.size() == 2) return matmul_contraction(operands[0], operands[1], reference);
      break;
    case OpKind::Linear:
      if (operands.size() >= 2) return linear_contraction(operands[0], operands[1], bias);
      break;
    case OpKind::Conv2d:
      if (operands.size() >= 2) return conv2d_contraction(operands[0], operands[1], bias, instr.attrs, reference);
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
      if (operands.size() == 1) return reduction_contraction(instr, operands[0], reference);
      break;
    default:
      break;
  }
  return std::nullopt;
}

// The worst ratio and its element (the first of equals; NaN ranks above all).
struct Worst {
  double ratio = 0.0;
  int64_t element = -1;
  void take(double r, int64_t e) {
    const bool nan = std::isnan(r), had_nan = std::isnan(ratio);
    if (had_nan) {
      if (nan && e < element) element = e;
      return;
    }
    if (nan || r > ratio || (r == ratio && element >= 0 && e < element)) {
      ratio = r;
      element = e;
    }
  }
};

// f32 operands, but a linear's or conv2d's weight may be bf16 (as the per-op
// check passes a device's weight).
bool readable(const DeviceInstr& instr, const std::vector<Tensor>& operands) {
  const bool bf16_weight = instr.kind == OpKind::Linear || instr.kind == OpKind::Conv2d;
  for (size_t i = 0; i < operands.size(); ++i) {
    const DType dtype = operands[i].dtype();
    if (dtype != DType::F32 && !(bf16_weight && i == 1 && dtype == DType::BF16)) return false;
  }
  return true;
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
  if (instr.attrs.has("fidelity_phases") || operands.empty() || !readable(instr, operands)) return std::nullopt;
  if (device.dtype() != DType::F32 || reference.dtype() != DType::F32 || device.shape() != reference.shape()) {
    return std::nullopt;
  }
  const std::optional<Contraction> contraction = contraction_of(instr, operands, reference);
  if (!contraction) return std::nullopt;
  const AccumulationBound bound_of(contraction->k, result_dtype);
  const float* d = device.data<float>();
  const float* r = reference.data<float>();
  // First every element against the rounding term alone (magnitude 0): an
  // upper bound of its ratio, exact enough where it is at most 1 (the
  // element is within the bound whatever its magnitude). In f32 lanes
  // (core/vector_lanes.h), each ratio raised by kRaise, more than the f32
  // rounding of its few steps, so a ratio at most 1 here is at most 1
  // exactly; an element whose rounding term is too small for f32's relative
  // precision gets inf (it goes to the exact path). A NaN ratio is past.
  using namespace lanes;
  constexpr float kRaise = 1.0f + 0x1p-20f;
  const float u_out = static_cast<float>(unit_roundoff(result_dtype));  // a power of two
  const float floor = static_cast<float>(bound_of(0.0, 0.0));           // (k + 1) 2^-149: an f32 subnormal
  auto rounding_ratio = [u_out, floor](Vf dv, Vf rv) {
    const Vf error = magnitude(dv - rv);
    const Vf term = u_out * magnitude(rv);
    const Vf ratio = error / (term + floor) * kRaise;
    return (error == 0.0f) | (term >= 0x1p-100f) | (error != error) ? ratio : Vf{} + INFINITY;
  };
  // One element, through the same lanes (its value in lane 0).
  auto ratio_at = [&](int64_t i) { return static_cast<double>(rounding_ratio(Vf{} + d[i], Vf{} + r[i])[0]); };
  constexpr int64_t kChunk = 4096;
  const int64_t n = reference.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Worst> within(static_cast<size_t>(chunks));
  std::vector<std::vector<int64_t>> past(static_cast<size_t>(chunks));  // elements past the rounding term
  parallel_ranges(chunks, 4, [&](int64_t first_chunk, int64_t last_chunk) {
    for (int64_t c = first_chunk; c < last_chunk; ++c) {
      const int64_t begin = c * kChunk, end = std::min(n, begin + kChunk);
      // Each lane's worst ratio and its element (the first of equals; a NaN stays).
      Vf lane_worst{};
      Vi lane_at = Vi{} - 1;
      int64_t i = begin;
      for (; i + kLanes <= end; i += kLanes) {
        const Vf x = rounding_ratio(load(d + i), load(r + i));
        const Vi worse = (x > lane_worst) | ((x != x) & (lane_worst == lane_worst));
        lane_worst = worse ? x : lane_worst;
        lane_at = worse ? (Vi{} + static_cast<int32_t>(i - begin)) + lane_index() : lane_at;
      }
      Worst& w = within[static_cast<size_t>(c)];
      for (int l = 0; l < kLanes; ++l) {
        if (lane_at[l] >= 0) w.take(static_cast<double>(lane_worst[l]), begin + lane_at[l]);
      }
      for (; i < end; ++i) w.take(ratio_at(i), i);
      if (!(w.ratio > 1.0) && !std::isnan(w.ratio)) continue;  // the common case: every element within
      w = Worst{};
      for (i = begin; i < end; ++i) {
        const double x = ratio_at(i);
        if (x <= 1.0) {
          w.take(x, i);
        } else {
          past[static_cast<size_t>(c)].push_back(i);
        }
      }
    }
  });
  Worst worst;
  for (const Worst& w : within) {
    if (w.element >= 0) worst.take(w.ratio, w.element);
  }
  std::vector<int64_t> candidates;
  for (const std::vector<int64_t>& p : past) candidates.insert(candidates.end(), p.begin(), p.end());
  // Those elements with their magnitudes: exact ratios.
  std::vector<Worst> exact(static_cast<size_t>((static_cast<int64_t>(candidates.size()) + 63) / 64));
  parallel_ranges(static_cast<int64_t>(exact.size()), 1, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t end = std::min<int64_t>(static_cast<int64_t>(candidates.size()), (b + 1) * 64);
      for (int64_t j = b * 64; j < end; ++j) {
        const int64_t i = candidates[static_cast<size_t>(j)];
        const double error = std::fabs(static_cast<double>(d[i]) - static_cast<double>(r[i]));
        exact[static_cast<size_t>(b)].take(error / bound_of(r[i], contraction->magnitude(i)), i);
      }
    }
  });
  for (const Worst& w : exact) {
    if (w.element >= 0) worst.take(w.ratio, w.element);
  }
  AccumulationCheck check;
  check.k = contraction->k;
  check.worst_ratio = std::isnan(worst.ratio) ? std::numeric_limits<double>::infinity() : worst.ratio;
  check.worst_element = check.worst_ratio > 0.0 ? worst.element : -1;
  return check;
}

}  // namespace meshtest::runner
