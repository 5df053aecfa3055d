// Element types of tensors and exact conversions between them:
// f32 <-> bf16 (round to nearest even, NaN kept quiet) and the bfp8_b block
// format (16 values share one 8-bit exponent; each keeps sign + 7-bit mantissa).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace meshtest {

enum class DType { F32, BF16, BFP8_B, I32, I64, Bool };

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
bool is_floating(DType dtype);
bool is_integer(DType dtype);  // i32, i64, bool

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
