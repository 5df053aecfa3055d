// Deterministic random numbers: the same seed gives the same tensor on every
// machine and thread count. Tensors come from core/simd.h's counter-based
// streams; Rng is the sequential generator for everything else (noise,
// integer draws: those fills are split into fixed-size chunks, each with its
// own derived seed).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/tensor.h"

namespace meshtest {

// 64-bit FNV-1a, for deriving seeds from names ("resnet50/conv1.weight").
uint64_t hash_seed(std::string_view text, uint64_t base = 0xcbf29ce484222325ull);
// Mixes two seeds into one (splitmix64 finaliser).
uint64_t mix_seed(uint64_t a, uint64_t b);

// xoshiro256** generator seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next_u64();
  double uniform();  // [0, 1)
  double normal();   // standard normal (ziggurat, see rng.cpp)
  int64_t uniform_int(int64_t low, int64_t high);  // [low, high)

 private:
  uint64_t s_[4];
};

// Fresh tensors with deterministic contents: element i is element i of the
// stream `seed` (core/simd.h), in parallel, the same on every machine and
// thread count. dtype f32 or bf16 (bf16 is generated directly, with the bits
// the f32 tensor's .to(BF16) would have); other float dtypes are encoded from f32.
Tensor random_normal(const Shape& shape, uint64_t seed, float mean = 0.0f, float stddev = 1.0f,
                     DType dtype = DType::F32);
Tensor random_uniform(const Shape& shape, uint64_t seed, float low, float high, DType dtype = DType::F32);
// i64 tensor with values in [low, high) (token ids, labels).
Tensor random_int(const Shape& shape, uint64_t seed, int64_t low, int64_t high);
Tensor filled(const Shape& shape, float value);

}  // namespace meshtest
