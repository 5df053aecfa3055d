// The verdict of an output from the figures of one pass over both tensors
// (pair_scan.h) and the checks its config enables; bf16 ulp figures; norms.
#include "comparators/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "comparators/pair_scan.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/vector_lanes.h"

namespace meshtest::comparators {

namespace {

// l2_norm's chunks (tasks) and its f64 lanes, fixed in the source (element
// i always adds into lane i % kNormLanes), so its sum is the same whatever the
// vector width and thread count.
constexpr int64_t kNormChunk = 1 << 16;
constexpr int kNormLanes = 8;

// NaN / inf counts of one side, for the failure message.
struct NonFinite {
  int64_t nan = 0, inf = 0;
};
NonFinite count_non_finite(const Tensor& t) {
  NonFinite c;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.element_as_double(i);
    c.nan += std::isnan(v);
    c.inf += std::isinf(v);
  }
  return c;
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// OutputMetrics::decided_by of the checks that judge an output.
std::string decided_by(bool pcc, bool atol, bool allclose, bool scale) {
  const std::pair<bool, const char*> checks[] = {
      {pcc, "pcc"}, {atol, "atol"}, {allclose, "allclose"}, {scale, "scale"}};
  std::string out;
  for (const auto& [on, check] : checks) {
    if (on) out += (out.empty() ? "" : "+") + std::string(check);
  }
  return out.empty() ? "none" : out;
}

// max_bf16_ulp_error's passes over [begin, end): branch-free per element so
// they vectorize, in parallel chunks (a maximum does not depend on order).
struct UlpScan {
  bool finite = true;
  double largest = 0.0;
  double sum_abs = 0.0, sum_bias = 0.0;  // ulp_errors: over the elements counted
  int64_t counted = 0;
};

inline uint32_t float_bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

UlpScan finite_and_largest(const float* d, const float* r, int64_t begin, int64_t end) {
  constexpr int kUlpLanes = 16;  // independent maxima, so the loop vectorizes
  uint32_t non_finite = 0;
  float largest[kUlpLanes] = {};
  auto visit = [&](int64_t i, int l) {
    const uint32_t rb = float_bits(r[i]), db = float_bits(d[i]);
    non_finite |= static_cast<uint32_t>((rb & 0x7f800000u) == 0x7f800000u) |
                  static_cast<uint32_t>((db & 0x7f800000u) == 0x7f800000u);
    largest[l] = std::max(largest[l], std::fabs(r[i]));
  };
  int64_t i = begin;
  for (; i + kUlpLanes <= end; i += kUlpLanes) {
    for (int l = 0; l < kUlpLanes; ++l) visit(i + l, l);
  }
  for (; i < end; ++i) visit(i, 0);
  return {non_finite == 0, static_cast<double>(*std::max_element(largest, largest + kUlpLanes))};
}

// |d - r| / ulp(max(|r|, floor)) with ulp(v) = 2^(exponent(v) - 7), the
// exponent read from the f64 bits of v (an f32 value or floor is a normal
// f64, floor > 0), the division a multiplication by an exact power of two;
// and, over the elements at or above the floor, the sums of |error| and of
// the error toward the element's magnitude ((d - r) sign(r)), in ulp.
UlpScan ulp_errors(const float* d, const float* r, double floor, int64_t begin, int64_t end) {
  constexpr int kUlpLanes = 8;  // independent maxima and sums, so the loop vectorizes
  double worst[kUlpLanes] = {}, sum_abs[kUlpLanes] = {}, sum_bias[kUlpLanes] = {}, counted[kUlpLanes] = {};
  auto visit = [&](int64_t i, int l) {
    const double ri = static_cast<double>(r[i]);
    const double magnitude = std::max(std::fabs(ri), floor);
    uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    const uint64_t inverse_ulp_bits = (2 * 1023 + 7 - (bits >> 52)) << 52;  // 2^(7 - exponent); magnitude > 0
    double inverse_ulp;
    std::memcpy(&inverse_ulp, &inverse_ulp_bits, sizeof inverse_ulp);
    const double error = (static_cast<double>(d[i]) - ri) * inverse_ulp;
    const double magnitude_error = std::fabs(error);
    const double above = std::fabs(ri) >= floor ? 1.0 : 0.0;
    worst[l] = std::max(worst[l], magnitude_error);
    sum_abs[l] += above * magnitude_error;
    sum_bias[l] += above * error * std::copysign(1.0, ri);  // toward the magnitude: sign(r) (d - r)
    counted[l] += above;
  };
  int64_t i = begin;
  for (; i + kUlpLanes <= end; i += kUlpLanes) {
    for (int l = 0; l < kUlpLanes; ++l) visit(i + l, l);
  }
  for (; i < end; ++i) visit(i, 0);
  UlpScan out;
  double total_counted = 0.0;
  for (int l = 0; l < kUlpLanes; ++l) {
    out.largest = std::max(out.largest, worst[l]);
    out.sum_abs += sum_abs[l];
    out.sum_bias += sum_bias[l];
    total_counted += counted[l];
  }
  out.counted = static_cast<int64_t>(total_counted);
  return out;
}

// ulp_errors in f32 lanes (core/vector_lanes.h) for a floor of at least
// kLanesFloor (the inverse ulps are then f32 normals and the f32 difference
// d - r errs by at most 2^-24 of itself), the sums taken in f32 over blocks
// of kSteps steps and the blocks in f64; a block whose figures leave f32's
// range (a wildly wrong device value) is redone by ulp_errors.
constexpr double kLanesFloor = 0x1p-100;
UlpScan ulp_errors_lanes(const float* d, const float* r, double floor, int64_t begin, int64_t end) {
  using namespace lanes;
  constexpr int64_t kSteps = 32, kBlock = kSteps * kLanes;
  const Vf low = Vf{} + static_cast<float>(floor);  // exact: floor is a power of two times an f32 value
  UlpScan out;
  int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    Vf worst{}, sum_abs{}, sum_bias{};
    Vi counted{};
    for (int64_t s = 0; s < kSteps; ++s) {
      const Vf dv = load(d + i + s * kLanes), rv = load(r + i + s * kLanes);
      const Vf size = magnitude(rv);
      const Vu exponent = as<Vu>(larger(size, low)) >> 23;
      const Vf inverse_ulp = as<Vf>((261u - exponent) << 23);  // 2^(7 - exponent)
      const Vf error = (dv - rv) * inverse_ulp;
      const Vf size_error = magnitude(error);
      const Vi above = size >= low;
      worst = larger(worst, size_error);
      sum_abs += above ? size_error : Vf{};
      sum_bias += above ? as<Vf>(as<Vu>(error) ^ (as<Vu>(rv) & 0x80000000u)) : Vf{};  // sign(r) (d - r)
      counted -= above;
    }
    const double block_abs = lane_sum(sum_abs), block_bias = lane_sum(sum_bias);
    const float block_worst = lane_max(worst);
    if (!std::isfinite(block_abs + block_bias) || !std::isfinite(block_worst)) {
      const UlpScan exact = ulp_errors(d, r, floor, i, i + kBlock);
      out.largest = std::max(out.largest, exact.largest);
      out.sum_abs += exact.sum_abs;
      out.sum_bias += exact.sum_bias;
      out.counted += exact.counted;
      continue;
    }
    out.largest = std::max(out.largest, static_cast<double>(block_worst));
    out.sum_abs += block_abs;
    out.sum_bias += block_bias;
    out.counted += lane_sum(counted);
  }
  const UlpScan rest = ulp_errors(d, r, floor, i, end);
  out.largest = std::max(out.largest, rest.largest);
  out.sum_abs += rest.sum_abs;
  out.sum_bias += rest.sum_bias;
  out.counted += rest.counted;
  return out;
}

template <class Pass>
UlpScan ulp_scan(int64_t n, const Pass& pass) {
  constexpr int64_t kUlpChunk = 1 << 15;
  const int64_t chunks = (n + kUlpChunk - 1) / kUlpChunk;
  std::vector<UlpScan> parts(static_cast<size_t>(chunks));
  parallel_ranges(chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      parts[static_cast<size_t>(c)] = pass(c * kUlpChunk, std::min(n, (c + 1) * kUlpChunk));
    }
  });
  UlpScan total;
  for (const UlpScan& p : parts) {
    total.finite = total.finite && p.finite;
    total.largest = std::max(total.largest, p.largest);
    total.sum_abs += p.sum_abs;
    total.sum_bias += p.sum_bias;
    total.counted += p.counted;
  }
  return total;
}

}  // namespace

double max_abs(const Tensor& t) {
  double m = 0.0;
  for (float v : t.to_f32_vector()) {
    if (std::isnan(v)) return NAN;
    m = std::max(m, static_cast<double>(std::fabs(v)));
  }
  return m;
}

double l2_norm(const Tensor& t) {
  const Tensor f = t.dtype() == DType::F32 ? t : t.to(DType::F32);
  const float* p = f.data<float>();
  const int64_t n = f.numel();
  const int64_t chunks = (n + kNormChunk - 1) / kNormChunk;
  std::vector<double> parts(static_cast<size_t>(chunks));
  parallel_ranges(chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double lanes[kNormLanes] = {};
      const int64_t first = c * kNormChunk, last = std::min(n, first + kNormChunk);
      int64_t i = first;
      for (; i + kNormLanes <= last; i += kNormLanes) {
        for (int l = 0; l < kNormLanes; ++l) lanes[l] += static_cast<double>(p[i + l]) * static_cast<double>(p[i + l]);
      }
      for (; i < last; ++i) lanes[0] += static_cast<double>(p[i]) * static_cast<double>(p[i]);
      double sum = 0.0;
      for (double v : lanes) sum += v;
      parts[static_cast<size_t>(c)] = sum;
    }
  });
  double total = 0.0;
  for (double v : parts) total += v;
  return std::sqrt(total);
}

namespace {

void require_f32_pair(const Tensor& device, const Tensor& reference) {
  if (device.shape() != reference.shape() || device.dtype() != DType::F32 || reference.dtype() != DType::F32) {
    throw Error("bf16_ulp_stats: needs two f32 tensors of one shape");
  }
}

// The errors' figures of two finite tensors whose reference's largest
// magnitude is `largest`.
Bf16UlpStats ulp_stats_of_finite(const float* d, const float* r, int64_t n, double largest) {
  Bf16UlpStats stats;
  if (largest == 0.0) {  // every reference element is 0: any other device value is infinitely off
    for (int64_t i = 0; i < n; ++i) {
      if (d[i] != 0.0f) stats.max = std::numeric_limits<double>::infinity();
    }
    return stats;
  }
  const double floor = largest * 0x1p-16;
  const UlpScan errors = ulp_scan(n, [&](int64_t begin, int64_t end) {
    return floor >= kLanesFloor ? ulp_errors_lanes(d, r, floor, begin, end) : ulp_errors(d, r, floor, begin, end);
  });
  stats.max = errors.largest;
  stats.counted = errors.counted;
  if (errors.counted > 0) {
    stats.mean_abs = errors.sum_abs / static_cast<double>(errors.counted);
    stats.bias = errors.sum_bias / static_cast<double>(errors.counted);
  }
  return stats;
}

Bf16UlpStats not_finite_stats() {
  Bf16UlpStats stats;
  stats.max = stats.mean_abs = std::numeric_limits<double>::infinity();
  return stats;
}

}  // namespace

Bf16UlpStats bf16_ulp_stats(const Tensor& device, const Tensor& reference) {
  require_f32_pair(device, reference);
  const float* d = device.data<float>();
  const float* r = reference.data<float>();
  const int64_t n = reference.numel();
  const UlpScan first = ulp_scan(n, [&](int64_t begin, int64_t end) { return finite_and_largest(d, r, begin, end); });
  if (!first.finite) return not_finite_stats();
  return ulp_stats_of_finite(d, r, n, first.largest);
}

Bf16UlpStats bf16_ulp_stats(const Tensor& device, const Tensor& reference, const OutputMetrics& compared) {
  require_f32_pair(device, reference);
  if (!compared.finite) return not_finite_stats();
  return ulp_stats_of_finite(device.data<float>(), reference.data<float>(), reference.numel(), compared.golden_max_abs);
}

double max_bf16_ulp_error(const Tensor& device, const Tensor& reference) {
  return bf16_ulp_stats(device, reference).max;
}

OutputMetrics compare_tensors(const std::string& name, const Tensor& device, const Tensor& golden,
                              const ComparisonConfig& config) {
  OutputMetrics m;
  m.name = name;
  if (device.shape() != golden.shape()) {
    m.failure = "output '" + name + "': shape " + shape_to_string(device.shape()) + " differs from golden " +
                shape_to_string(golden.shape());
    m.decided_by = "shape";
    return m;
  }
  const int64_t n = device.numel();
  if (n == 0) {
    m.pcc = 1.0;
    m.allclose = m.equal = m.passed = true;
    m.decided_by = "empty";
    return m;
  }
  const PairStats total = scan_pair(device, golden, {config.allclose_rtol, config.allclose_atol});
  if (!std::isfinite(total.mean_d + total.mean_g + total.sq_d + total.sq_g)) {
    const NonFinite dev = count_non_finite(device), gold = count_non_finite(golden);
    m.finite = false;
    m.pcc = 0.0;
    m.atol = INFINITY;
    m.rel_l2 = INFINITY;
    m.failure = "output '" + name + "': non-finite values (device: " + std::to_string(dev.nan) + " NaN, " +
                std::to_string(dev.inf) + " inf; golden: " + std::to_string(gold.nan) + " NaN, " +
                std::to_string(gold.inf) + " inf)";
    m.decided_by = "finite";
    return m;
  }
  m.atol = total.max_abs;
  m.golden_l2 = std::sqrt(total.sq_g);
  m.golden_max_abs = total.max_g;
  m.error_l2 = std::sqrt(total.sq_diff);
  m.rel_l2 = total.sq_g > 0 ? std::sqrt(total.sq_diff / total.sq_g) : (total.sq_diff > 0 ? INFINITY : 0.0);
  m.norm_ratio = total.sq_g > 0 ? std::sqrt(total.sq_d / total.sq_g) : (total.sq_d > 0 ? INFINITY : 1.0);
  m.allclose = total.not_close == 0;
  m.equal = total.not_equal == 0;
  if (total.m2_d == 0.0 || total.m2_g == 0.0) {
    m.pcc = m.allclose ? 1.0 : 0.0;
  } else {
    m.pcc = std::clamp(total.c_dg / std::sqrt(total.m2_d * total.m2_g), -1.0, 1.0);
  }

  // Under kMinPccElements, allclose judges in PCC's place (unless atol or allclose already does).
  m.few_elements = n < kMinPccElements;
  const bool judge_pcc = config.assert_pcc && !m.few_elements;
  const bool allclose_for_pcc = config.assert_pcc && m.few_elements && !config.assert_atol && !config.assert_allclose;
  const bool judge_allclose = config.assert_allclose || allclose_for_pcc;
  m.decided_by = decided_by(judge_pcc, config.assert_atol, judge_allclose, config.assert_scale);

  std::vector<std::string> reasons;
  if (judge_pcc && !(m.pcc >= config.required_pcc)) {
    reasons.push_back("PCC " + fmt(m.pcc) + " < required " + fmt(config.required_pcc));
  }
  if (config.assert_atol && !(m.atol <= config.required_atol)) {
    reasons.push_back("max |diff| " + fmt(m.atol) + " > required atol " + fmt(config.required_atol));
  }
  if (judge_allclose && !m.allclose) {
    reasons.push_back("allclose(rtol=" + fmt(config.allclose_rtol) + ", atol=" + fmt(config.allclose_atol) +
                      ") fails on " + std::to_string(total.not_close) + " of " + std::to_string(n) + " elements" +
                      (allclose_for_pcc ? " (under " + std::to_string(kMinPccElements) +
                                              " elements allclose judges, not PCC " + fmt(m.pcc) + ")"
                                        : ""));
  }
  if (config.assert_scale && !(std::fabs(m.norm_ratio - 1.0) <= config.scale_tolerance)) {
    reasons.push_back("L2 norm " + fmt(m.norm_ratio) + "x the golden's (allowed 1 +- " + fmt(config.scale_tolerance) +
                      "; PCC cannot see a scale error)");
  }
  m.passed = reasons.empty();
  if (!m.passed) {
    m.failure = "output '" + name + "': ";
    for (size_t i = 0; i < reasons.size(); ++i) m.failure += (i ? "; " : "") + reasons[i];
  }
  return m;
}

Verdict compare_outputs(const std::vector<std::string>& names, const std::vector<Tensor>& device,
                        const std::vector<Tensor>& golden, const ComparisonConfig& config) {
  Verdict v;
  if (device.size() != golden.size() || names.size() != golden.size()) {
    v.passed = false;
    v.message = "device produced " + std::to_string(device.size()) + " outputs, golden " +
                std::to_string(golden.size());
    return v;
  }
  size_t with_few_elements = 0;
  for (size_t i = 0; i < golden.size(); ++i) {
    OutputMetrics m = compare_tensors(names[i], device[i], golden[i], config);
    if (m.few_elements) ++with_few_elements;
    else v.min_pcc = std::min(v.min_pcc, m.pcc);
    v.max_atol = std::max(v.max_atol, m.atol);
    v.max_rel_l2 = std::max(v.max_rel_l2, m.rel_l2);
    if (!m.passed) {
      if (v.passed) v.message = m.failure;
      v.passed = false;
    }
    v.outputs.push_back(std::move(m));
  }
  if (with_few_elements > 0 && with_few_elements == v.outputs.size()) v.min_pcc = NAN;  // no PCC was judged
  return v;
}

}  // namespace meshtest::comparators
