// core/simd.h: picks the kernel build for the CPU and walks a stream range
// block by block (each 2^32 elements of a stream has its own key).
#include "core/simd.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/rng.h"
#include "core/simd_table.h"

namespace meshtest::simd {

#ifndef MESHTEST_SIMD_AVX512
const KernelTable* avx512_kernels() { return nullptr; }
const KernelTable* avx512_bf16_kernels() { return nullptr; }
#endif

namespace {

bool cpu_has(Isa isa) {
#if defined(MESHTEST_SIMD_AVX512) && (defined(__x86_64__) || defined(__i386__))
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (isa == Isa::Avx512) return avx512;
  if (isa == Isa::Avx512Bf16) return avx512 && __builtin_cpu_supports("avx512bf16");
#endif
  return isa == Isa::Portable;
}

Isa detect_best() {
  Isa cap = Isa::Avx512Bf16;
  if (const char* env = std::getenv("MESHTEST_ISA"); env != nullptr && *env != '\0') {
    const std::string want(env);
    if (want == "portable") cap = Isa::Portable;
    else if (want == "avx512") cap = Isa::Avx512;
    else if (want != "avx512_bf16") throw Error("MESHTEST_ISA='" + want + "': expected portable, avx512 or avx512_bf16");
  }
  for (Isa isa : {Isa::Avx512Bf16, Isa::Avx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(cap) && isa_supported(isa)) return isa;
  }
  return Isa::Portable;
}

const KernelTable& table(Isa isa) {
  if (!isa_supported(isa)) throw Error("simd path '" + std::string(isa_name(isa)) + "' is not supported here");
  switch (isa) {
    case Isa::Avx512: return *avx512_kernels();
    case Isa::Avx512Bf16: return *avx512_bf16_kernels();
    case Isa::Portable: break;
  }
  return portable_kernels();
}

StreamKey block_key(uint64_t seed, uint64_t block) {
  const uint64_t k = mix_seed(seed, block);
  return {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
}

// Calls fill(key, offset within block, count, out offset) per 2^32 block.
template <class Fill>
void for_each_block(uint64_t seed, int64_t begin, int64_t count, Fill fill) {
  if (begin < 0 || count < 0) throw Error("simd stream range must be non-negative");
  int64_t done = 0;
  while (done < count) {
    const uint64_t index = static_cast<uint64_t>(begin + done);
    const uint64_t in_block = index & 0xffffffffull;
    const int64_t n = std::min<int64_t>(count - done, static_cast<int64_t>((uint64_t{1} << 32) - in_block));
    fill(block_key(seed, index >> 32), static_cast<uint32_t>(in_block), n, done);
    done += n;
  }
}

}  // namespace

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::Portable: return "portable";
    case Isa::Avx512: return "avx512";
    case Isa::Avx512Bf16: return "avx512_bf16";
  }
  return "?";
}

bool isa_supported(Isa isa) {
  if (isa == Isa::Portable) return true;
  if ((isa == Isa::Avx512 ? avx512_kernels() : avx512_bf16_kernels()) == nullptr) return false;
  static const bool avx512 = cpu_has(Isa::Avx512), bf16 = cpu_has(Isa::Avx512Bf16);
  return isa == Isa::Avx512 ? avx512 : bf16;
}

Isa best_isa() {
  static const Isa best = detect_best();
  return best;
}

void fill_normal(uint64_t seed, int64_t begin, int64_t count, float mean, float stddev, float* out, Isa isa) {
  const KernelTable& t = table(isa);
  for_each_block(seed, begin, count, [&](const StreamKey& k, uint32_t at, int64_t n, int64_t o) {
    t.normal_f32(k, at, n, mean, stddev, out + o);
  });
}

void fill_normal(uint64_t seed, int64_t begin, int64_t count, float mean, float stddev, uint16_t* out, Isa isa) {
  const KernelTable& t = table(isa);
  for_each_block(seed, begin, count, [&](const StreamKey& k, uint32_t at, int64_t n, int64_t o) {
    t.normal_bf16(k, at, n, mean, stddev, out + o);
  });
}

void fill_uniform(uint64_t seed, int64_t begin, int64_t count, float low, float high, float* out, Isa isa) {
  const KernelTable& t = table(isa);
  for_each_block(seed, begin, count, [&](const StreamKey& k, uint32_t at, int64_t n, int64_t o) {
    t.uniform_f32(k, at, n, low, high, out + o);
  });
}

void fill_uniform(uint64_t seed, int64_t begin, int64_t count, float low, float high, uint16_t* out, Isa isa) {
  const KernelTable& t = table(isa);
  for_each_block(seed, begin, count, [&](const StreamKey& k, uint32_t at, int64_t n, int64_t o) {
    t.uniform_bf16(k, at, n, low, high, out + o);
  });
}

void f32_to_bf16(const float* in, uint16_t* out, int64_t n, Isa isa) { table(isa).f32_to_bf16(in, out, n); }

}  // namespace meshtest::simd
