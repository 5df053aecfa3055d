// Element conversion between dtypes with StableHLO `convert` semantics, one
// rounding per conversion:
// - float -> float: round to nearest even (f64 -> f16/bf16 directly, never
//   through f32); NaN stays NaN, overflow becomes inf.
// - float -> int: truncate toward zero; out-of-range values saturate to the
//   type's min/max and NaN becomes 0 (StableHLO leaves these unspecified;
//   this is the guarded, UB-free choice).
// - int -> float: round to nearest even (i64/u64 -> f16/bf16 rounds once).
// - int -> int: two's-complement wrap-around (keeps the low bits).
// - x -> bool: x != 0 (NaN is true); bool -> x: 0 or 1.
// Tags are DTypeTag<D> of core/dtype_dispatch.h (no bfp8_b: convert via f32).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"

namespace meshtest {

namespace convert_detail {

// |value| of an integer as a double rounded to odd at 53 bits: exact below
// 2^53; above, the dropped bits set the lowest kept bit, so a later rounding
// to a narrower format (f16, bf16) equals a single rounding of the integer.
inline double magnitude_round_to_odd(uint64_t magnitude) {
  if (magnitude < (uint64_t{1} << 53)) return static_cast<double>(magnitude);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  const uint64_t kept = magnitude >> shift;
  const bool inexact = (magnitude & ((uint64_t{1} << shift) - 1)) != 0;
  return std::ldexp(static_cast<double>(kept | (inexact ? 1u : 0u)), shift);
}

template <class To>
typename To::storage from_double(double value) {
  if constexpr (To::dtype == DType::F64) {
    return value;
  } else if constexpr (To::dtype == DType::F32) {
    return static_cast<float>(value);
  } else if constexpr (To::dtype == DType::BF16) {
    return f64_to_bf16(value);
  } else if constexpr (To::dtype == DType::F16) {
    return f64_to_f16(value);
  } else if constexpr (To::dtype == DType::Bool) {
    return value != 0.0 ? 1 : 0;
  } else {  // integer: truncate, saturate, NaN -> 0
    using T = typename To::storage;
    if (std::isnan(value)) return 0;
    const double truncated = std::trunc(value);
    constexpr int value_bits = std::numeric_limits<T>::digits;  // excludes the sign bit
    if (truncated <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (truncated >= std::ldexp(1.0, value_bits)) return std::numeric_limits<T>::max();
    return static_cast<T>(truncated);
  }
}

template <class To, class Int>
typename To::storage from_integer(Int value) {
  if constexpr (To::dtype == DType::Bool) {
    return value != 0 ? 1 : 0;
  } else if constexpr (!To::floating) {
    return static_cast<typename To::storage>(value);  // modular since C++20
  } else if constexpr (To::dtype == DType::F64 || To::dtype == DType::F32) {
    return static_cast<typename To::storage>(value);  // correctly rounded
  } else {
    bool negative = false;
    if constexpr (std::is_signed_v<Int>) negative = value < 0;
    const uint64_t magnitude =
        negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    const double rounded_to_odd = magnitude_round_to_odd(magnitude);
    return from_double<To>(negative ? -rounded_to_odd : rounded_to_odd);
  }
}

}  // namespace convert_detail

// One element of dtype From converted to dtype To.
template <class To, class From>
typename To::storage convert_element(typename From::storage value) {
  if constexpr (To::dtype == From::dtype) {
    return value;
  } else if constexpr (From::dtype == DType::F32 && To::dtype == DType::BF16) {
    return f32_to_bf16(value);
  } else if constexpr (From::floating) {
    return convert_detail::from_double<To>(static_cast<double>(From::load(value)));
  } else if constexpr (From::dtype == DType::Bool) {
    return convert_detail::from_integer<To>(static_cast<int>(value != 0));
  } else {
    return convert_detail::from_integer<To>(value);
  }
}

// `count` elements of dtype `from` at `src` converted into dtype `to` at `dst`
// (neither bfp8_b).
void convert_elements(DType from, const void* src, DType to, void* dst, int64_t count);

}  // namespace meshtest
