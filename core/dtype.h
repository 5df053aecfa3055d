// Element types of tensors and exact conversions between them:
// f32 <-> bf16 and f64/f32 <-> f16 (round to nearest even, NaN kept quiet) and
// the bfp8_b block format (16 values share one 8-bit exponent; each keeps
// sign + 7-bit mantissa). Element storage per dtype and a generic dispatch over
// dtypes: core/dtype_dispatch.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace meshtest {

// New dtypes are appended (existing values keep their numbers).
// F16 is IEEE binary16 stored as its uint16 bits; U* are unsigned; Bool is
// StableHLO's i1, one byte 0/1.
enum class DType { F32, BF16, BFP8_B, I32, I64, Bool, F16, F64, I8, I16, U8, U16, U32, U64 };

// Every dtype, in enum order.
inline constexpr DType kAllDTypes[] = {DType::F32, DType::BF16, DType::BFP8_B, DType::I32, DType::I64,
                                       DType::Bool, DType::F16, DType::F64, DType::I8, DType::I16,
                                       DType::U8, DType::U16, DType::U32, DType::U64};

// Lower-case name used in IR text and reports: "f32", "bf16", "bfp8_b", ...
std::string_view dtype_name(DType dtype);
// Inverse of dtype_name; throws ParseError for an unknown name.
DType parse_dtype(std::string_view name);
// Bytes per element for element-addressable types; bfp8_b is a block format:
// use storage_bytes() instead. Returns 0 for bfp8_b.
size_t dtype_size(DType dtype);
// Bytes needed to store `numel` values of `dtype`; for bfp8_b the whole blocks
// of `numel` values already laid out in blocks (a tile-padded count: a bfp8_b
// tensor's bytes are bfp8_b_storage_bytes(shape), core/bfp8_layout.h).
size_t storage_bytes(DType dtype, int64_t numel);
bool is_floating(DType dtype);  // f32, bf16, bfp8_b, f16, f64
bool is_integer(DType dtype);   // every signed and unsigned integer, and bool
bool is_signed_integer(DType dtype);    // i8, i16, i32, i64
bool is_unsigned_integer(DType dtype);  // u8, u16, u32, u64 (not bool)
// Bits of one element (bool: 1, bfp8_b: 8 per value, ignoring the shared exponent).
int dtype_bits(DType dtype);

// ---- bf16 ----
// Round-to-nearest-even on the f32 bit pattern. NaN stays NaN (quiet bit set,
// sign kept), +-inf stays inf, values that round past the largest finite bf16
// become inf (as IEEE rounding requires), denormals round like any other value.
// Inline: called per element in loops outside core (no call through the PLT).
inline uint16_t f32_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep sign and payload top, force quiet
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  const uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;  // ties go to the even neighbour; overflow carries into inf
  return static_cast<uint16_t>(bits >> 16);
}

inline float bf16_to_f32(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}
// f32 -> bf16 -> f32 in one call (the rounding the device applies).
inline float round_to_bf16(float value) { return bf16_to_f32(f32_to_bf16(value)); }

// ---- f16 (IEEE binary16) ----
// Round-to-nearest-even from f64 (so f64 -> f16 rounds once); NaN stays NaN
// (quiet, sign kept), overflow becomes inf, results below the smallest normal
// become f16 denormals (or +-0).
uint16_t f64_to_f16(double value);
inline uint16_t f32_to_f16(float value) { return f64_to_f16(static_cast<double>(value)); }
float f16_to_f32(uint16_t bits);  // exact
inline float round_to_f16(float value) { return f16_to_f32(f32_to_f16(value)); }
// f64 -> bf16 with a single rounding (not through f32, which could round twice).
uint16_t f64_to_bf16(double value);

// `value` rounded to nearest even in a binary format with `exponent_bits` and
// `mantissa_bits` (explicit bits) and IEEE gradual underflow; overflow -> inf.
// NaN and inf pass through. Requires 2 <= exponent_bits <= 11, mantissa_bits <= 52.
double round_to_binary_format(double value, int exponent_bits, int mantissa_bits);

// ---- bfp8_b ----
// Block of 16 values. Layout of one block in storage: 1 shared exponent byte
// followed by 16 bytes, each (sign << 7) | mantissa7. The shared exponent is
// the largest biased f32 exponent in the block; each value's mantissa (with the
// implicit leading one) is shifted right to that exponent and rounded to
// nearest even into 7 bits (saturating). NaN/inf inputs are stored as the
// largest magnitude with their sign (the format has no encoding for them).
constexpr int kBfp8BlockSize = 16;
constexpr size_t kBfp8BlockBytes = 1 + kBfp8BlockSize;
// One block: encodes `count` (<= 16) floats, the rest of the block zero
// padding; decodes its first `count` values. Which values share a block is the
// tensor layout's business (core/bfp8_layout.h: rows of tile faces).
void encode_bfp8_b_block(const float* src, int count, uint8_t* block);
void decode_bfp8_b_block(const uint8_t* block, int count, float* dst);

}  // namespace meshtest
