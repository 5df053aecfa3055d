// Scalar semantics of the StableHLO elementwise ops on one element, shared by
// the reference and device kernels (runtime/) and const-eval, so there is one
// definition of each edge case (StableHLO spec; the StableHLO test data check
// them against XLA): integer arithmetic wraps (two's complement), integer
// division by zero and INT_MIN / -1, shifts by the bit width or more,
// IEEE minimum/maximum (NaN wins, -0 < +0), total order of floats, and
// bit-level float operations (next_after, reduce_precision) on any IEEE
// binary format given as its bits.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace meshtest::scalar {

// The unsigned type of T's width, for wrap-around arithmetic without UB
// (at least 32 bits wide, so small types do not promote to int).
template <class T>
using WrapType = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T> T wrap_add(T x, T y) { return static_cast<T>(WrapType<T>(x) + WrapType<T>(y)); }
template <class T> T wrap_sub(T x, T y) { return static_cast<T>(WrapType<T>(x) - WrapType<T>(y)); }
template <class T> T wrap_mul(T x, T y) { return static_cast<T>(WrapType<T>(x) * WrapType<T>(y)); }
template <class T> T wrap_neg(T x) { return static_cast<T>(WrapType<T>(0) - WrapType<T>(x)); }

// |x|; the most negative value stays itself (StableHLO abs).
template <class T> T wrap_abs(T x) {
  if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_neg(x) : x;
  return x;
}

// Integer division truncating toward zero (StableHLO divide): x / 0 is -1
// (all bits set), INT_MIN / -1 is INT_MIN.
template <class T> T div_truncate(T x, T y) {
  if (y == 0) return static_cast<T>(-1);
  if constexpr (std::is_signed_v<T>) {
    if (x == std::numeric_limits<T>::min() && y == -1) return x;
  }
  return static_cast<T>(x / y);
}

// Floor division (python //); the caller rejects y == 0. INT_MIN // -1 wraps.
template <class T> T div_floor(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (x == std::numeric_limits<T>::min() && y == -1) return x;
    const T q = static_cast<T>(x / y);
    return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
  }
  return static_cast<T>(x / y);
}

// Remainder with the dividend's sign (StableHLO remainder): x % 0 is x,
// INT_MIN % -1 is 0.
template <class T> T remainder_int(T x, T y) {
  if (y == 0) return x;
  if constexpr (std::is_signed_v<T>) {
    if (y == -1) return 0;
  }
  return static_cast<T>(x % y);
}

// IEEE maximum / minimum: NaN if either is NaN; -0 < +0.
template <class F> F float_max(F x, F y) {
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<F>::quiet_NaN();
  if (x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <class F> F float_min(F x, F y) {
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<F>::quiet_NaN();
  if (x == y) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

// -1, 0 or 1; floats keep +-0 and NaN.
template <class T> T sign(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || x == 0) return x;
    return std::copysign(T(1), x);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>((x > 0) - (x < 0));
  } else {
    return static_cast<T>(x != 0);
  }
}

// base^exponent by squaring, wrapping; a negative exponent gives 1/base^-e
// truncated toward zero: 1 for base 1, +-1 for base -1, 0 otherwise.
template <class T> T power_int(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  auto e = static_cast<std::make_unsigned_t<T>>(exponent);
  T result = 1;
  T b = base;
  while (e != 0) {
    if (e & 1u) result = wrap_mul(result, b);
    b = wrap_mul(b, b);
    e >>= 1;
  }
  return result;
}

// Shifts; the amount is read as unsigned, so a negative one is out of range.
// Out of range (>= bit width): 0, or all sign bits for the arithmetic shift.
template <class T> T shift_left(T x, T amount) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(amount) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) << static_cast<U>(amount)));
}
template <class T> T shift_right_logical(T x, T amount) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(amount) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) >> static_cast<U>(amount)));
}
template <class T> T shift_right_arithmetic(T x, T amount) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  const S sx = static_cast<S>(x);
  if (static_cast<U>(amount) >= sizeof(T) * 8) return static_cast<T>(sx < 0 ? S(-1) : S(0));
  return static_cast<T>(static_cast<S>(sx >> static_cast<U>(amount)));  // arithmetic since C++20
}

template <class T> T popcnt(T x) { return static_cast<T>(std::popcount(static_cast<std::make_unsigned_t<T>>(x))); }
template <class T> T clz(T x) { return static_cast<T>(std::countl_zero(static_cast<std::make_unsigned_t<T>>(x))); }

// Halfway cases away from zero / to even.
template <class F> F round_afz(F x) { return std::round(x); }
template <class F> F round_even(F x) { return std::nearbyint(x); }  // the default mode: to nearest even

// The key of a double in IEEE total order as a signed integer:
// -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
inline int64_t total_order_key(double x) {
  const auto bits = std::bit_cast<int64_t>(x);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

// Comparison directions of StableHLO compare.
enum class CompareDirection { EQ, NE, LT, LE, GT, GE };

// "EQ" .. "GE" (StableHLO's ComparisonDirection); false for any other text.
inline bool parse_compare_direction(std::string_view text, CompareDirection& direction) {
  constexpr std::pair<std::string_view, CompareDirection> kNames[] = {
      {"EQ", CompareDirection::EQ}, {"NE", CompareDirection::NE}, {"LT", CompareDirection::LT},
      {"LE", CompareDirection::LE}, {"GT", CompareDirection::GT}, {"GE", CompareDirection::GE}};
  for (const auto& [name, d] : kNames) {
    if (name == text) {
      direction = d;
      return true;
    }
  }
  return false;
}

// a <direction> b with C++ semantics of the values (IEEE for floats: NaN is
// unordered, so only NE holds).
template <class T> bool compare(CompareDirection d, T a, T b) {
  switch (d) {
    case CompareDirection::EQ: return a == b;
    case CompareDirection::NE: return a != b;
    case CompareDirection::LT: return a < b;
    case CompareDirection::LE: return a <= b;
    case CompareDirection::GT: return a > b;
    case CompareDirection::GE: return a >= b;
  }
  return false;
}

// The inverse error function in double: an initial approximation (Giles,
// "Approximating the erfinv function") refined by Newton steps on erf.
inline double erf_inv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  if (y == 0.0) return y;
  double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  // Newton on erf(x) - y for |x|; erf's derivative is 2/sqrt(pi) e^(-x^2).
  // Above |y| = 0.5 the residual is taken as (1 - |y|) - erfc(|x|) (1 - |y|
  // is exact there), keeping its precision near |y| = 1.
  const double ay = std::fabs(y);
  double ax = std::fabs(x);
  for (int i = 0; i < 3; ++i) {
    const double residual = ay > 0.5 ? (1.0 - ay) - std::erfc(ax) : std::erf(ax) - ay;
    const double slope = 1.1283791670955126 * std::exp(-ax * ax);
    if (slope == 0.0) break;
    ax -= residual / slope;
  }
  return std::copysign(ax, y);
}

// The digamma function psi(x) = d/dx ln gamma(x): NaN at 0 and the negative
// integers; reflection below 0.5, recurrence up to 10, then the asymptotic series.
inline double digamma(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0.0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  double result = 0.0;
  if (x < 0.5) {  // psi(x) = psi(1 - x) - pi / tan(pi x)
    result -= kPi / std::tan(kPi * x);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double inv2 = 1.0 / (x * x);
  // sum of B_2k / (2k x^2k), k = 1..7: the next term is below 1e-16 at x >= 10.
  const double series =
      inv2 * (1.0 / 12 -
              inv2 * (1.0 / 120 -
                      inv2 * (1.0 / 252 -
                              inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 * (1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x - series;
}

// ---- bit-level operations on an IEEE binary format held as bits ----
// Format: `exponent_bits` and `mantissa_bits` (explicit), in the low bits of
// UInt (sign at bit exponent_bits + mantissa_bits).
template <class UInt> struct BinaryFormat {
  int exponent_bits;
  int mantissa_bits;
  int sign_shift() const { return exponent_bits + mantissa_bits; }
  UInt sign_mask() const { return static_cast<UInt>(UInt{1} << sign_shift()); }
  UInt exponent_mask() const { return static_cast<UInt>(((UInt{1} << exponent_bits) - 1) << mantissa_bits); }
  UInt magnitude_mask() const { return static_cast<UInt>(sign_mask() - 1); }
  bool is_nan(UInt bits) const {
    return (bits & exponent_mask()) == exponent_mask() && (bits & (exponent_mask() ^ magnitude_mask())) != 0;
  }
};

// The next value after `from` towards `to` (as std::nextafter), on bits;
// `from_value`/`to_value` are the same values as doubles (for ordering).
template <class UInt>
UInt next_after_bits(BinaryFormat<UInt> f, UInt from, UInt to, double from_value, double to_value) {
  if (f.is_nan(from)) return from;
  if (f.is_nan(to)) return to;
  if (from_value == to_value) return to;
  if ((from & f.magnitude_mask()) == 0) {  // +-0: the smallest denormal with to's sign
    return static_cast<UInt>((to_value < 0 ? f.sign_mask() : UInt{0}) | UInt{1});
  }
  const bool away_from_zero = (from_value < to_value) == (from_value > 0);
  return static_cast<UInt>(away_from_zero ? from + 1 : from - 1);
}

// XLA's reduce_precision on bits of format `f`: the mantissa rounded to
// `mantissa_bits` (nearest even), then, when `exponent_bits` is narrower than
// the format's, exponents above the reduced range become inf and those at or
// below its smallest normal become +-0. NaN stays NaN (when mantissa_bits > 0).
template <class UInt>
UInt reduce_precision_bits(BinaryFormat<UInt> f, UInt bits, int exponent_bits, int mantissa_bits) {
  const UInt original = bits;
  if (mantissa_bits < f.mantissa_bits) {
    const int dropped = f.mantissa_bits - mantissa_bits;
    const UInt last_kept = static_cast<UInt>(UInt{1} << dropped);
    const UInt bias = static_cast<UInt>((last_kept >> 1) - 1 + ((bits >> dropped) & 1u));
    bits = static_cast<UInt>((bits + bias) & ~static_cast<UInt>(last_kept - 1));
  }
  if (exponent_bits < f.exponent_bits) {
    const int64_t exponent_bias = (int64_t{1} << (f.exponent_bits - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const auto exponent = static_cast<int64_t>((bits & f.exponent_mask()) >> f.mantissa_bits);
    const UInt sign = static_cast<UInt>(bits & f.sign_mask());
    if (exponent > exponent_bias + reduced_bias) {
      bits = static_cast<UInt>(sign | f.exponent_mask());
    } else if (exponent <= exponent_bias - reduced_bias) {
      bits = sign;
    }
  }
  if (mantissa_bits > 0 && f.is_nan(original)) return original;
  return bits;
}

}  // namespace meshtest::scalar
