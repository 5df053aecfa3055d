// PCC / atol / allclose / rel-L2 in f64 with a fixed (deterministic) parallel
// partition, and the verdict from the enabled checks.
#include "comparators/metrics.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/error.h"

namespace meshtest::comparators {

namespace {

constexpr int64_t kChunk = 1 << 16;

// Per-chunk partial sums; combined in chunk order so results never depend on
// thread scheduling.
struct Partial {
  double sum_d = 0, sum_g = 0;
  double dev_dd = 0, dev_gg = 0, dev_dg = 0;  // second pass (about the means)
  double sq_diff = 0, sq_g = 0, sq_d = 0;
  double max_abs = 0;
  int64_t nan_d = 0, inf_d = 0, nan_g = 0, inf_g = 0;
  int64_t not_close = 0, not_equal = 0;
};

// Read-only f64 view of a tensor's elements: f32 data is read in place (no
// copy of a 10^8-element output), other dtypes are widened once.
class DoubleView {
 public:
  explicit DoubleView(const Tensor& t) {
    if (t.dtype() == DType::F32) {
      f32_ = t.data<float>();
    } else if (t.dtype() == DType::BFP8_B) {
      const std::vector<float> f = t.to_f32_vector();
      wide_.assign(f.begin(), f.end());
    } else {
      wide_.resize(static_cast<size_t>(t.numel()));
      for (int64_t i = 0; i < t.numel(); ++i) wide_[static_cast<size_t>(i)] = t.element_as_double(i);
    }
  }
  double operator[](int64_t i) const { return f32_ ? static_cast<double>(f32_[i]) : wide_[static_cast<size_t>(i)]; }

 private:
  const float* f32_ = nullptr;
  std::vector<double> wide_;
};

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool close(double d, double g, double rtol, double atol) { return std::fabs(d - g) <= atol + rtol * std::fabs(g); }

}  // namespace

double max_abs(const Tensor& t) {
  double m = 0.0;
  for (float v : t.to_f32_vector()) {
    if (std::isnan(v)) return NAN;
    m = std::max(m, static_cast<double>(std::fabs(v)));
  }
  return m;
}

double max_bf16_ulp_error(const Tensor& device, const Tensor& reference) {
  if (device.shape() != reference.shape() || device.dtype() != DType::F32 || reference.dtype() != DType::F32) {
    throw Error("max_bf16_ulp_error: needs two f32 tensors of one shape");
  }
  const float* d = device.data<float>();
  const float* r = reference.data<float>();
  const int64_t n = reference.numel();
  double largest = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(r[i]) || !std::isfinite(d[i])) return std::numeric_limits<double>::infinity();
    largest = std::max(largest, std::fabs(static_cast<double>(r[i])));
  }
  const double floor = largest * 0x1p-16;
  double worst = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double magnitude = std::max(std::fabs(static_cast<double>(r[i])), floor);
    if (magnitude == 0.0) {
      if (d[i] != 0.0f) return std::numeric_limits<double>::infinity();
      continue;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(magnitude) - 7);
    worst = std::max(worst, std::fabs(static_cast<double>(d[i]) - r[i]) / ulp);
  }
  return worst;
}

OutputMetrics compare_tensors(const std::string& name, const Tensor& device, const Tensor& golden,
                              const ComparisonConfig& config) {
  OutputMetrics m;
  m.name = name;
  if (device.shape() != golden.shape()) {
    m.failure = "output '" + name + "': shape " + shape_to_string(device.shape()) + " differs from golden " +
                shape_to_string(golden.shape());
    return m;
  }
  const int64_t n = device.numel();
  if (n == 0) {
    m.pcc = 1.0;
    m.allclose = m.equal = m.passed = true;
    return m;
  }
  const DoubleView d(device);
  const DoubleView g(golden);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<Partial> parts(static_cast<size_t>(chunks));

  tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
    Partial& p = parts[static_cast<size_t>(c)];
    const int64_t end = std::min(n, (c + 1) * kChunk);
    for (int64_t i = c * kChunk; i < end; ++i) {
      const double a = d[i], b = g[i];
      p.nan_d += std::isnan(a);
      p.inf_d += std::isinf(a);
      p.nan_g += std::isnan(b);
      p.inf_g += std::isinf(b);
      p.sum_d += a;
      p.sum_g += b;
      const double diff = a - b;
      p.sq_diff += diff * diff;
      p.sq_g += b * b;
      p.sq_d += a * a;
      p.max_abs = std::max(p.max_abs, std::fabs(diff));
      p.not_close += !close(a, b, config.allclose_rtol, config.allclose_atol);
      p.not_equal += a != b;
    }
  });
  Partial total;
  for (const Partial& p : parts) {
    total.sum_d += p.sum_d;
    total.sum_g += p.sum_g;
    total.sq_diff += p.sq_diff;
    total.sq_g += p.sq_g;
    total.sq_d += p.sq_d;
    total.max_abs = std::max(total.max_abs, p.max_abs);
    total.nan_d += p.nan_d;
    total.inf_d += p.inf_d;
    total.nan_g += p.nan_g;
    total.inf_g += p.inf_g;
    total.not_close += p.not_close;
    total.not_equal += p.not_equal;
  }
  if (total.nan_d + total.inf_d + total.nan_g + total.inf_g > 0) {
    m.finite = false;
    m.pcc = 0.0;
    m.atol = INFINITY;
    m.rel_l2 = INFINITY;
    m.failure = "output '" + name + "': non-finite values (device: " + std::to_string(total.nan_d) + " NaN, " +
                std::to_string(total.inf_d) + " inf; golden: " + std::to_string(total.nan_g) + " NaN, " +
                std::to_string(total.inf_g) + " inf)";
    return m;
  }
  m.atol = total.max_abs;
  m.rel_l2 = total.sq_g > 0 ? std::sqrt(total.sq_diff / total.sq_g) : (total.sq_diff > 0 ? INFINITY : 0.0);
  m.norm_ratio = total.sq_g > 0 ? std::sqrt(total.sq_d / total.sq_g) : (total.sq_d > 0 ? INFINITY : 1.0);
  m.allclose = total.not_close == 0;
  m.equal = total.not_equal == 0;

  {
    const double mean_d = total.sum_d / static_cast<double>(n);
    const double mean_g = total.sum_g / static_cast<double>(n);
    tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
      Partial& p = parts[static_cast<size_t>(c)];
      const int64_t end = std::min(n, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i) {
        const double a = d[i] - mean_d, b = g[i] - mean_g;
        p.dev_dd += a * a;
        p.dev_gg += b * b;
        p.dev_dg += a * b;
      }
    });
    double dd = 0, gg = 0, dg = 0;
    for (const Partial& p : parts) {
      dd += p.dev_dd;
      gg += p.dev_gg;
      dg += p.dev_dg;
    }
    if (dd == 0.0 || gg == 0.0) {
      m.pcc = m.allclose ? 1.0 : 0.0;
    } else {
      m.pcc = std::clamp(dg / std::sqrt(dd * gg), -1.0, 1.0);
    }
  }

  std::vector<std::string> reasons;
  if (config.assert_pcc && !(m.pcc >= config.required_pcc)) {
    reasons.push_back("PCC " + fmt(m.pcc) + " < required " + fmt(config.required_pcc));
  }
  if (config.assert_atol && !(m.atol <= config.required_atol)) {
    reasons.push_back("max |diff| " + fmt(m.atol) + " > required atol " + fmt(config.required_atol));
  }
  if (config.assert_allclose && !m.allclose) {
    reasons.push_back("allclose(rtol=" + fmt(config.allclose_rtol) + ", atol=" + fmt(config.allclose_atol) +
                      ") fails on " + std::to_string(total.not_close) + " of " + std::to_string(n) + " elements");
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
  for (size_t i = 0; i < golden.size(); ++i) {
    OutputMetrics m = compare_tensors(names[i], device[i], golden[i], config);
    v.min_pcc = std::min(v.min_pcc, m.pcc);
    v.max_atol = std::max(v.max_atol, m.atol);
    v.max_rel_l2 = std::max(v.max_rel_l2, m.rel_l2);
    if (!m.passed) {
      if (v.passed) v.message = m.failure;
      v.passed = false;
    }
    v.outputs.push_back(std::move(m));
  }
  return v;
}

}  // namespace meshtest::comparators
