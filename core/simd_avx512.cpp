// core/simd_kernels.inl built for AVX-512 (F, BW, DQ, VL), and f32 -> bf16 by
// AVX512-BF16's vcvtne2ps2bf16 for CPUs that have it. Only compiled for x86
// with a compiler that takes the flags (core/CMakeLists.txt); only called
// after simd.cpp checked the CPU.
#include <immintrin.h>

#include <cstring>

#include "core/simd_table.h"

namespace meshtest::simd {
namespace {

#include "core/simd_kernels.inl"

// (maskz: GCC 12 warns that the unmasked form reads an undefined register.)
inline vf lane_sqrt(vf v) { return as<vf>(_mm512_maskz_sqrt_ps(0xffff, as<__m512>(v))); }

inline bool any_lane(vi mask) {
  const __m512i m = as<__m512i>(mask);
  return _mm512_test_epi32_mask(m, m) != 0;
}

// vcvtne2ps2bf16 rounds to nearest even and quiets NaN like f32_to_bf16 but
// flushes denormal inputs to zero: a group of 32 holding one (exponent bits 0,
// mantissa not) goes through the integer lanes instead.
__attribute__((target("avx512bf16"))) void f32_to_bf16_vcvtne(const float* in, uint16_t* out, int64_t n) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000);
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(in + i);
    const __m512 hi = _mm512_loadu_ps(in + i + 16);
    const __m512i lo_bits = _mm512_castps_si512(lo), hi_bits = _mm512_castps_si512(hi);
    const __mmask16 lo_denormal = _mm512_testn_epi32_mask(lo_bits, exponent) & _mm512_test_epi32_mask(lo_bits, magnitude);
    const __mmask16 hi_denormal = _mm512_testn_epi32_mask(hi_bits, exponent) & _mm512_test_epi32_mask(hi_bits, magnitude);
    if ((lo_denormal | hi_denormal) != 0) [[unlikely]] {
      f32_to_bf16_lanes_impl(in + i, out + i, 32);
      continue;
    }
    _mm512_storeu_si512(out + i, as<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
  }
  f32_to_bf16_lanes_impl(in + i, out + i, n - i);
}

}  // namespace

const KernelTable* avx512_kernels() {
  static const KernelTable table{
      fill_normal_impl<float>, fill_normal_impl<uint16_t>, fill_uniform_impl<float>, fill_uniform_impl<uint16_t>,
      f32_to_bf16_lanes_impl};
  return &table;
}

const KernelTable* avx512_bf16_kernels() {
  static const KernelTable table{
      fill_normal_impl<float>, fill_normal_impl<uint16_t>, fill_uniform_impl<float>, fill_uniform_impl<uint16_t>,
      f32_to_bf16_vcvtne};
  return &table;
}

}  // namespace meshtest::simd
