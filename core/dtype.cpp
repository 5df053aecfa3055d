// Element types: names, sizes and the exact f32 <-> bf16 / bfp8_b conversions.
#include "core/dtype.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace meshtest {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::BFP8_B: return "bfp8_b";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
    case DType::F16: return "f16";
    case DType::F64: return "f64";
    case DType::I8: return "i8";
    case DType::I16: return "i16";
    case DType::U8: return "u8";
    case DType::U16: return "u16";
    case DType::U32: return "u32";
    case DType::U64: return "u64";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  std::string expected;
  for (DType d : kAllDTypes) {
    if (dtype_name(d) == name) return d;
    expected += (expected.empty() ? "" : ", ") + std::string(dtype_name(d));
  }
  throw ParseError("unknown dtype '" + std::string(name) + "' (expected one of " + expected + ")");
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::BF16: return 2;
    case DType::BFP8_B: return 0;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::Bool: return 1;
    case DType::F16: return 2;
    case DType::F64: return 8;
    case DType::I8: return 1;
    case DType::I16: return 2;
    case DType::U8: return 1;
    case DType::U16: return 2;
    case DType::U32: return 4;
    case DType::U64: return 8;
  }
  return 0;
}

size_t storage_bytes(DType dtype, int64_t numel) {
  if (dtype == DType::BFP8_B) {
    return static_cast<size_t>((numel + kBfp8BlockSize - 1) / kBfp8BlockSize) * kBfp8BlockBytes;
  }
  return dtype_size(dtype) * static_cast<size_t>(numel);
}

bool is_floating(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::BFP8_B || dtype == DType::F16 ||
         dtype == DType::F64;
}

bool is_integer(DType dtype) { return !is_floating(dtype); }

bool is_signed_integer(DType dtype) {
  return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
}

bool is_unsigned_integer(DType dtype) {
  return dtype == DType::U8 || dtype == DType::U16 || dtype == DType::U32 || dtype == DType::U64;
}

int dtype_bits(DType dtype) {
  if (dtype == DType::Bool) return 1;
  if (dtype == DType::BFP8_B) return 8;
  return static_cast<int>(dtype_size(dtype)) * 8;
}

double round_to_binary_format(double value, int exponent_bits, int mantissa_bits) {
  if (!std::isfinite(value) || value == 0.0) return value;
  const int max_exponent = (1 << (exponent_bits - 1)) - 1;
  const int min_exponent = 1 - max_exponent;
  // The spacing of representable values at |value|: 2^(e - mantissa_bits),
  // the same for every denormal (e clamped to the smallest normal exponent).
  const int quantum = std::max(std::ilogb(value), min_exponent) - mantissa_bits;
  // Scaling by powers of two is exact; rint rounds half to even.
  const double rounded = std::ldexp(std::rint(std::ldexp(std::fabs(value), -quantum)), quantum);
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, -mantissa_bits), max_exponent);
  return std::copysign(rounded > largest ? HUGE_VAL : rounded, value);
}

uint16_t f64_to_f16(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  if (std::isnan(value)) {  // quiet NaN, payload top bits kept
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return static_cast<uint16_t>(sign | 0x7e00u | ((bits >> 42) & 0x1ffu));
  }
  const double rounded = std::fabs(round_to_binary_format(value, 5, 10));
  if (std::isinf(rounded)) return static_cast<uint16_t>(sign | 0x7c00u);
  if (rounded == 0.0) return sign;
  const int exponent = std::ilogb(rounded);
  if (exponent < -14) {  // denormal: the value in units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(rounded, 24)));
  }
  const auto mantissa = static_cast<uint16_t>(std::ldexp(rounded, 10 - exponent) - 1024.0);
  return static_cast<uint16_t>(sign | ((exponent + 15) << 10) | mantissa);
}

float f16_to_f32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  uint32_t wide;
  if (exponent == 0x1fu) {
    wide = sign | 0x7f800000u | (mantissa << 13);  // inf, or NaN with its payload
  } else if (exponent != 0) {
    wide = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else {  // zero or denormal: exact in f32 as mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

uint16_t f64_to_bf16(double value) {
  if (std::isnan(value)) return f32_to_bf16(static_cast<float>(value));
  // Rounded once to bf16's precision and range; the f32 step is then exact.
  return f32_to_bf16(static_cast<float>(round_to_binary_format(value, 8, 7)));
}

namespace {

uint32_t float_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Biased exponent as used for block sharing (denormals behave as exponent 1).
int block_exponent(uint32_t bits) {
  const int e = static_cast<int>((bits >> 23) & 0xffu);
  return e == 0 ? 1 : e;
}

// Round-to-nearest-even right shift of a non-negative integer.
uint32_t shift_right_rne(uint32_t value, int shift) {
  if (shift <= 0) return value;
  if (shift >= 32) return 0;
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1u))) return kept + 1;
  return kept;
}

}  // namespace

void encode_bfp8_b_block(const float* src, int count, uint8_t* block) {
  float vals[kBfp8BlockSize] = {};
  for (int i = 0; i < count; ++i) {
    const float v = src[i];
    vals[i] = std::isnan(v) || std::isinf(v) ? (std::signbit(v) ? -FLT_MAX : FLT_MAX) : v;
  }
  int shared = 0;
  for (float v : vals) {
    if (v != 0.0f) shared = std::max(shared, block_exponent(float_bits(v)));
  }
  block[0] = static_cast<uint8_t>(shared);
  for (int i = 0; i < kBfp8BlockSize; ++i) {
    const uint32_t bits = float_bits(vals[i]);
    const uint32_t sign = bits >> 31;
    uint32_t mant7 = 0;
    if (vals[i] != 0.0f) {
      const int e = block_exponent(bits);
      const uint32_t frac = bits & 0x7fffffu;
      const uint32_t mant24 = ((bits >> 23) & 0xffu) == 0 ? frac : (frac | 0x800000u);
      mant7 = std::min<uint32_t>(127u, shift_right_rne(mant24, 17 + (shared - e)));
    }
    block[1 + i] = static_cast<uint8_t>((sign << 7) | mant7);
  }
}

void decode_bfp8_b_block(const uint8_t* block, int count, float* dst) {
  const int shared = block[0];
  for (int i = 0; i < count; ++i) {
    const uint8_t byte = block[1 + i];
    const float magnitude = std::ldexp(static_cast<float>(byte & 0x7fu), shared - 127 - 6);
    dst[i] = (byte & 0x80u) ? -magnitude : magnitude;
  }
}

}  // namespace meshtest
