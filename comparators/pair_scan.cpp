// scan_pair (pair_scan.h): chunks in parallel, merged in order; within a
// chunk, blocks of f32 (or bf16) pairs summed in 16 f32 lanes around the
// block's own mean, each block's figures combined in f64 (Chan et al.'s
// pairwise update). What the f32 lanes cannot give exactly is redone in f64
// for the few blocks that need it: a block whose values leave f32's safe
// range, a block holding an element whose allclose verdict is within f32's
// rounding of its bound, and the block(s) holding the largest |d - g|.
#include "comparators/pair_scan.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/dtype.h"
#include "core/vector_lanes.h"

namespace meshtest::comparators {

namespace {

// Elements per chunk (a task of the parallel scan).
constexpr int64_t kChunk = 1 << 16;

// ---- f64 on every element: f64 pairs, short tails, blocks f32 cannot take.

inline double value(const float* p, int64_t i) { return static_cast<double>(p[i]); }
inline double value(const double* p, int64_t i) { return p[i]; }
inline double value(const uint16_t* p, int64_t i) { return static_cast<double>(bf16_to_f32(p[i])); }

inline bool not_close(double abs_diff, double g, Tolerance tol) {
  return !(abs_diff <= tol.atol + tol.rtol * std::fabs(g));
}

// Sums of each side's deviations from its first element, centred at the end
// (exact to 2^-53 n relative: that element is within sqrt(n) standard
// deviations of the mean). Fixed lanes (element i adds into lane i % 8), so
// the figures do not depend on the vector width the compiler picks.
template <typename D, typename G>
PairStats scan_f64(const D* d, const G* g, int64_t n, Tolerance tol) {
  constexpr int kLanes = 8;
  const double shift_d = value(d, 0), shift_g = value(g, 0);
  double sum_d[kLanes] = {}, sum_g[kLanes] = {}, m2_d[kLanes] = {}, m2_g[kLanes] = {}, c_dg[kLanes] = {};
  double sq_diff[kLanes] = {}, sq_d[kLanes] = {}, sq_g[kLanes] = {}, max_abs[kLanes] = {}, max_g[kLanes] = {};
  double far[kLanes] = {}, unequal[kLanes] = {};  // counts as doubles (exact below 2^53): int64 lanes keep the loop scalar
  auto add = [&](int l, double a, double b) {
    const double diff = a - b;
    const double abs_diff = std::fabs(diff);
    const double da = a - shift_d, db = b - shift_g;
    sum_d[l] += da;
    sum_g[l] += db;
    m2_d[l] += da * da;
    m2_g[l] += db * db;
    c_dg[l] += da * db;
    sq_diff[l] += diff * diff;
    sq_d[l] += a * a;
    sq_g[l] += b * b;
    max_abs[l] = max_abs[l] < abs_diff ? abs_diff : max_abs[l];
    max_g[l] = max_g[l] < std::fabs(b) ? std::fabs(b) : max_g[l];
    far[l] += not_close(abs_diff, b, tol) ? 1.0 : 0.0;
    unequal[l] += a != b ? 1.0 : 0.0;
  };
  const int64_t whole = n / kLanes * kLanes;
  for (int64_t i = 0; i < whole; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) add(l, value(d, i + l), value(g, i + l));
  }
  for (int64_t i = whole; i < n; ++i) add(static_cast<int>(i - whole), value(d, i), value(g, i));

  PairStats s;
  s.n = n;
  double shifted_d = 0, shifted_g = 0, shifted_dd = 0, shifted_gg = 0, shifted_dg = 0;
  for (int l = 0; l < kLanes; ++l) {
    shifted_d += sum_d[l];
    shifted_g += sum_g[l];
    shifted_dd += m2_d[l];
    shifted_gg += m2_g[l];
    shifted_dg += c_dg[l];
    s.sq_diff += sq_diff[l];
    s.sq_d += sq_d[l];
    s.sq_g += sq_g[l];
    s.max_abs = std::max(s.max_abs, max_abs[l]);
    s.max_g = std::max(s.max_g, max_g[l]);
    s.not_close += static_cast<int64_t>(far[l]);
    s.not_equal += static_cast<int64_t>(unequal[l]);
  }
  const double count = static_cast<double>(n);
  const double offset_d = shifted_d / count, offset_g = shifted_g / count;
  s.mean_d = shift_d + offset_d;
  s.mean_g = shift_g + offset_g;
  s.m2_d = std::max(0.0, shifted_dd - shifted_d * offset_d);
  s.m2_g = std::max(0.0, shifted_gg - shifted_g * offset_g);
  s.c_dg = shifted_dg - shifted_d * offset_g;
  return s;
}

// Folds b into a (a's elements come first).
void merge(PairStats& a, const PairStats& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n), n = na + nb;
  const double delta_d = b.mean_d - a.mean_d, delta_g = b.mean_g - a.mean_g;
  const double weight = na * nb / n;
  a.m2_d += b.m2_d + delta_d * delta_d * weight;
  a.m2_g += b.m2_g + delta_g * delta_g * weight;
  a.c_dg += b.c_dg + delta_d * delta_g * weight;
  a.mean_d += delta_d * nb / n;
  a.mean_g += delta_g * nb / n;
  a.n += b.n;
  a.sq_diff += b.sq_diff;
  a.sq_d += b.sq_d;
  a.sq_g += b.sq_g;
  a.max_abs = std::max(a.max_abs, b.max_abs);
  a.max_g = std::max(a.max_g, b.max_g);
  a.not_close += b.not_close;
  a.not_equal += b.not_equal;
}

// ---- f32 lanes.

using lanes::kLanes;
using lanes::Vf;
using lanes::Vi;
using lanes::load;
using lanes::magnitude;
using lanes::larger;
using lanes::lane_sum;
using lanes::lane_max;
using lanes::any_lane;

constexpr int64_t kSteps = 32;
constexpr int64_t kBlock = kLanes * kSteps;

// f32's safe range for a block's values: squares of up to 2^57 summed over a
// block stay below f32's largest value, and the squares of deviations of
// values from 2^-40 up stay normal (a deviation is at least 2^-23 of the
// value), so nothing is lost to overflow or underflow.
constexpr float kLargest = 0x1p56f;
constexpr float kSmallest = 0x1p-40f;
// An allclose verdict is certain in f32 when |d - g| is outside its bound by
// more than f32's rounding of both (a few 2^-24, relative): kMargin.
constexpr float kMargin = 0x1p-18f;
constexpr float kTinyBound = 0x1p-100f;  // below it, relative margins do not hold

// The figures of one block, or false where they need f64: a value NaN, inf
// or outside [kSmallest, kLargest] in magnitude (0 aside). `rounded_max` is
// the largest |d - g| rounded to f32 (exact max: rescanned by the caller).
template <typename D>
bool scan_block(const D* d, const float* g, Tolerance tol, PairStats& out, float& rounded_max) {
  // Pass 1 (the block is in L1 after it): each side's mean, in f32. (A side
  // that is one constant gets a spread of exactly 0 all the same: its
  // deviations from a mean rounded off it are one small value, whose sums
  // are exact, and the correction cancels them.)
  Vf sum_d{}, sum_g{};
  for (int64_t s = 0; s < kSteps; ++s) {
    sum_d += load(d + s * kLanes);
    sum_g += load(g + s * kLanes);
  }
  // Held as the vectors pass 2 subtracts and read back from them for the
  // f64 figures, so both use one f32 value. (Written as a float scalar, the
  // GCC 12 -O3 -march=native build's f64 figures used a mean that was not
  // the f32 value subtracted: each block's mean was off by that rounding,
  // which Pcc.ChunkMergeMatchesATwoPassReference caught.)
  const Vf mean_d = Vf{} + static_cast<float>(lane_sum(sum_d) / kBlock);
  const Vf mean_g = Vf{} + static_cast<float>(lane_sum(sum_g) / kBlock);

  // Pass 2: sums around those means (a corrected two-pass).
  const float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
  Vf s1_d{}, s1_g{}, s2_d{}, s2_g{}, c_dg{}, sq_diff{};
  Vf max_diff{}, max_d{}, max_g{};
  Vi far{}, unequal{}, uncertain{};
  for (int64_t s = 0; s < kSteps; ++s) {
    // The next block is fetched while this one (in L1) is summed: the first
    // pass then finds it in cache instead of waiting on memory.
    __builtin_prefetch(d + kBlock + s * kLanes);
    __builtin_prefetch(g + kBlock + s * kLanes);
    const Vf x = load(d + s * kLanes), y = load(g + s * kLanes);
    const Vf dx = x - mean_d, dy = y - mean_g;
    s1_d += dx;
    s1_g += dy;
    s2_d += dx * dx;
    s2_g += dy * dy;
    c_dg += dx * dy;
    const Vf diff = x - y;
    sq_diff += diff * diff;
    const Vf abs_diff = magnitude(diff), abs_g = magnitude(y);
    max_diff = larger(max_diff, abs_diff);
    max_d = larger(max_d, magnitude(x));
    max_g = larger(max_g, abs_g);
    const Vf bound = atol + rtol * abs_g;
    const Vi surely_close = (abs_diff == 0.0f) | ((abs_diff <= bound * (1.0f - kMargin)) & (bound >= kTinyBound));
    const Vi surely_far = (abs_diff > bound * (1.0f + kMargin)) & (abs_diff >= kTinyBound);
    far -= surely_far;  // a true lane is -1
    uncertain |= ~(surely_close | surely_far);
    unequal -= x != y;
  }
  const double dev_d = lane_sum(s1_d), dev_g = lane_sum(s1_g);
  const double spread_d = lane_sum(s2_d), spread_g = lane_sum(s2_g);
  const float largest_d = lane_max(max_d), largest_g = lane_max(max_g);
  if (!std::isfinite(spread_d + spread_g) || !(largest_d <= kLargest) || !(largest_g <= kLargest) ||
      (largest_d > 0.0f && largest_d < kSmallest) || (largest_g > 0.0f && largest_g < kSmallest)) {
    return false;
  }
  // Sums of squares from the sums around the means (sum x^2 = sum (x - m)^2
  // + 2 m sum (x - m) + n m^2): their f32 rounding is then relative to the
  // spread, not to the values.
  const double count = static_cast<double>(kBlock);
  const double md = static_cast<double>(mean_d[0]), mg = static_cast<double>(mean_g[0]);
  out.n = kBlock;
  out.mean_d = md + dev_d / count;
  out.mean_g = mg + dev_g / count;
  out.m2_d = std::max(0.0, spread_d - dev_d * dev_d / count);
  out.m2_g = std::max(0.0, spread_g - dev_g * dev_g / count);
  out.c_dg = lane_sum(c_dg) - dev_d * dev_g / count;
  out.sq_d = std::max(0.0, spread_d + 2.0 * md * dev_d + count * md * md);
  out.sq_g = std::max(0.0, spread_g + 2.0 * mg * dev_g + count * mg * mg);
  out.sq_diff = lane_sum(sq_diff);
  out.max_g = static_cast<double>(largest_g);
  out.not_equal = lane_sum(unequal);
  out.not_close = lane_sum(far);
  if (any_lane(uncertain)) {  // near its bound: decided in f64
    out.not_close = 0;
    for (int64_t i = 0; i < kBlock; ++i) out.not_close += not_close(std::fabs(value(d, i) - value(g, i)), value(g, i), tol);
  }
  rounded_max = lane_max(max_diff);
  out.max_abs = 0.0;  // set by the caller
  return true;
}

template <typename D>
double exact_max_abs_diff(const D* d, const float* g, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(value(d, i) - value(g, i)));
  return m;
}

// One chunk of f32 or bf16 device values beside f32 golden values.
template <typename D>
PairStats scan_chunk_lanes(const D* d, const float* g, int64_t n, Tolerance tol) {
  const int64_t blocks = n / kBlock;
  std::vector<float> rounded_max(static_cast<size_t>(blocks), -1.0f);  // -1: the block went through f64
  PairStats total;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t at = b * kBlock;
    PairStats block;
    if (!scan_block(d + at, g + at, tol, block, rounded_max[static_cast<size_t>(b)])) {
      block = scan_f64(d + at, g + at, kBlock, tol);
      rounded_max[static_cast<size_t>(b)] = -1.0f;
    }
    merge(total, block);
  }
  if (n > blocks * kBlock) merge(total, scan_f64(d + blocks * kBlock, g + blocks * kBlock, n - blocks * kBlock, tol));
  // The exact largest |d - g|: rounding to f32 keeps order, so it lies in a
  // block whose rounded maximum is the largest (f64 blocks are exact already).
  const float top = blocks > 0 ? *std::max_element(rounded_max.begin(), rounded_max.end()) : -1.0f;
  if (top > 0.0f) {
    for (int64_t b = 0; b < blocks; ++b) {
      if (rounded_max[static_cast<size_t>(b)] == top) {
        total.max_abs = std::max(total.max_abs, exact_max_abs_diff(d + b * kBlock, g + b * kBlock, kBlock));
      }
    }
  }
  return total;
}

template <typename Chunk>
PairStats scan_chunks(int64_t n, const Chunk& chunk) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<PairStats> parts(static_cast<size_t>(chunks));
  tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
    const int64_t begin = c * kChunk;
    parts[static_cast<size_t>(c)] = chunk(begin, std::min(kChunk, n - begin));
  });
  PairStats total;
  for (const PairStats& p : parts) merge(total, p);
  return total;
}

std::vector<double> widened(const Tensor& t) {
  if (t.dtype() == DType::BFP8_B || t.dtype() == DType::F32) {
    const std::vector<float> f = t.to_f32_vector();
    return {f.begin(), f.end()};
  }
  std::vector<double> wide(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) wide[static_cast<size_t>(i)] = t.element_as_double(i);
  return wide;
}

// Elements whose stored values differ, for two tensors of one integer dtype
// (exact where f64 is not: 64-bit integers above 2^53).
int64_t count_unequal_integers(const Tensor& device, const Tensor& golden) {
  const size_t size = dtype_size(device.dtype());
  const auto* d = static_cast<const unsigned char*>(device.raw_data());
  const auto* g = static_cast<const unsigned char*>(golden.raw_data());
  int64_t unequal = 0;
  for (int64_t i = 0; i < device.numel(); ++i) {
    const size_t at = static_cast<size_t>(i) * size;
    unequal += std::memcmp(d + at, g + at, size) != 0;
  }
  return unequal;
}

}  // namespace

PairStats scan_pair(const Tensor& device, const Tensor& golden, Tolerance tol) {
  const int64_t n = device.numel();
  if (device.dtype() == DType::F32 && golden.dtype() == DType::F32) {
    const float* d = device.data<float>();
    const float* g = golden.data<float>();
    return scan_chunks(n, [&](int64_t at, int64_t count) { return scan_chunk_lanes(d + at, g + at, count, tol); });
  }
  if (device.dtype() == DType::BF16 && golden.dtype() == DType::F32) {
    const auto* d = static_cast<const uint16_t*>(device.raw_data());
    const float* g = golden.data<float>();
    return scan_chunks(n, [&](int64_t at, int64_t count) { return scan_chunk_lanes(d + at, g + at, count, tol); });
  }
  if (device.dtype() == DType::F64 && golden.dtype() == DType::F64) {
    const double* d = device.data<double>();
    const double* g = golden.data<double>();
    return scan_chunks(n, [&](int64_t at, int64_t count) { return scan_f64(d + at, g + at, count, tol); });
  }
  const std::vector<double> d = widened(device), g = widened(golden);
  PairStats stats =
      scan_chunks(n, [&](int64_t at, int64_t count) { return scan_f64(d.data() + at, g.data() + at, count, tol); });
  if (device.dtype() == golden.dtype() && is_integer(device.dtype())) {
    stats.not_equal = count_unequal_integers(device, golden);
  }
  return stats;
}

}  // namespace meshtest::comparators
