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
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  for (DType d : {DType::F32, DType::BF16, DType::BFP8_B, DType::I32, DType::I64, DType::Bool}) {
    if (dtype_name(d) == name) return d;
  }
  throw ParseError("unknown dtype '" + std::string(name) +
                   "' (expected one of f32, bf16, bfp8_b, i32, i64, bool)");
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::BF16: return 2;
    case DType::BFP8_B: return 0;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::Bool: return 1;
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
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::BFP8_B;
}

bool is_integer(DType dtype) { return !is_floating(dtype); }

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
