// Vectorized element kernels with one result on every machine: the
// counter-based random streams the weight initialisers draw from, and
// f32 -> bf16 conversion. Each kernel has a portable build and an AVX-512
// build (plus AVX512-BF16's vcvtne2ps2bf16 for conversion); they return the
// same bits (tests/core/simd_test.cpp), so only the speed depends on the CPU.
//
// Streams. Element i of stream `seed` is a pure function of (seed, i): a
// 32-bit hash of i keyed by the seed, turned into a uniform (0, 1) float or a
// standard normal (inverse CDF, |z| < 5.4). Any split of a tensor into ranges
// (threads, chunks, lazy layer-by-layer fills) gives the same values.
#pragma once

#include <cstdint>
#include <string_view>

namespace meshtest::simd {

enum class Isa { Portable, Avx512, Avx512Bf16 };

std::string_view isa_name(Isa isa);
// Whether this build has the path and this CPU can run it.
bool isa_supported(Isa isa);
// The fastest supported path; MESHTEST_ISA=portable (or avx512) caps it.
Isa best_isa();

// out[k] = element (begin + k) of the stream, k < count, single-threaded.
// mean + stddev * normal, or low + (high - low) * uniform, rounded to f32
// (float*) or further to bf16 bits exactly as f32_to_bf16 (uint16_t*).
void fill_normal(uint64_t seed, int64_t begin, int64_t count, float mean, float stddev, float* out,
                 Isa isa = best_isa());
void fill_normal(uint64_t seed, int64_t begin, int64_t count, float mean, float stddev, uint16_t* out,
                 Isa isa = best_isa());
void fill_uniform(uint64_t seed, int64_t begin, int64_t count, float low, float high, float* out,
                  Isa isa = best_isa());
void fill_uniform(uint64_t seed, int64_t begin, int64_t count, float low, float high, uint16_t* out,
                  Isa isa = best_isa());

// out[i] = f32_to_bf16(in[i]) (core/dtype.h), single-threaded.
void f32_to_bf16(const float* in, uint16_t* out, int64_t n, Isa isa = best_isa());

}  // namespace meshtest::simd
