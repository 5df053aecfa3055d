// core/simd.cpp's view of the per-instruction-set kernel builds
// (simd_portable.cpp, simd_avx512.cpp): one table of entry points each.
#pragma once

#include <cstdint>

namespace meshtest::simd {

// A stream's key within one 2^32-element block of it.
struct StreamKey {
  uint32_t key0;
  uint32_t key1;
};

struct KernelTable {
  void (*normal_f32)(const StreamKey&, uint32_t begin, int64_t count, float mean, float stddev, float* out);
  void (*normal_bf16)(const StreamKey&, uint32_t begin, int64_t count, float mean, float stddev, uint16_t* out);
  void (*uniform_f32)(const StreamKey&, uint32_t begin, int64_t count, float low, float high, float* out);
  void (*uniform_bf16)(const StreamKey&, uint32_t begin, int64_t count, float low, float high, uint16_t* out);
  void (*f32_to_bf16)(const float* in, uint16_t* out, int64_t n);
};

const KernelTable& portable_kernels();
// Null where the build has no AVX-512 path (not x86, or the compiler lacks the flags).
const KernelTable* avx512_kernels();
const KernelTable* avx512_bf16_kernels();

}  // namespace meshtest::simd
