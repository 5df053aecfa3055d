// Deterministic RNG and chunked (parallel, thread-count independent) fills.
#include "core/rng.h"

#include <tbb/parallel_for.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/parallel.h"
#include "core/simd.h"

namespace meshtest {

namespace {

constexpr int64_t kChunk = 1 << 16;

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Calls fill(rng, begin, end) for fixed chunks of [0, n), each with its own
// generator seeded from (seed, chunk index): results never depend on threads.
template <class Fill>
void fill_chunked(int64_t n, uint64_t seed, Fill fill) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
    Rng rng(mix_seed(seed, static_cast<uint64_t>(c)));
    fill(rng, c * kChunk, std::min(n, (c + 1) * kChunk));
  });
}

// Marsaglia & Tsang's ziggurat for the standard normal (J. Stat. Software 5(8),
// 2000), 128 layers: almost every sample costs one generator step, a table
// lookup and a multiply; only about 1.2% reach the exp/log slow path. The
// tables are computed once, with the published constants.
class Ziggurat {
 public:
  Ziggurat() {
    constexpr double kM = 2147483648.0;  // 2^31
    double dn = kR, tn = kR;
    const double q = kV / std::exp(-0.5 * dn * dn);
    k_[0] = static_cast<uint32_t>((dn / q) * kM);
    k_[1] = 0;
    w_[0] = q / kM;
    w_[127] = dn / kM;
    f_[0] = 1.0;
    f_[127] = std::exp(-0.5 * dn * dn);
    for (int i = 126; i >= 1; --i) {
      dn = std::sqrt(-2.0 * std::log(kV / dn + std::exp(-0.5 * dn * dn)));
      k_[i + 1] = static_cast<uint32_t>((dn / tn) * kM);
      tn = dn;
      f_[i] = std::exp(-0.5 * dn * dn);
      w_[i] = dn / kM;
    }
  }

  double sample(Rng& rng) const {
    for (;;) {
      const auto hz = static_cast<int32_t>(static_cast<uint32_t>(rng.next_u64()));
      const int iz = hz & 127;
      const double x = hz * w_[iz];
      const uint32_t magnitude = hz < 0 ? 0u - static_cast<uint32_t>(hz) : static_cast<uint32_t>(hz);
      if (magnitude < k_[iz]) return x;  // inside the layer's rectangle: the fast path
      if (iz == 0) {                     // the tail beyond kR
        double tx, ty;
        do {
          tx = -std::log(positive_uniform(rng)) / kR;
          ty = -std::log(positive_uniform(rng));
        } while (ty + ty < tx * tx);
        return hz > 0 ? kR + tx : -kR - tx;
      }
      if (f_[iz] + rng.uniform() * (f_[iz - 1] - f_[iz]) < std::exp(-0.5 * x * x)) return x;
    }
  }

 private:
  static constexpr double kR = 3.442619855899;       // start of the tail
  static constexpr double kV = 9.91256303526217e-3;  // area of each layer

  static double positive_uniform(Rng& rng) {
    double u = rng.uniform();
    while (u <= 0.0) u = rng.uniform();
    return u;
  }

  uint32_t k_[128];
  double w_[128];
  double f_[128];
};

const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}

}  // namespace

uint64_t hash_seed(std::string_view text, uint64_t base) {
  uint64_t h = base;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t state = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  return splitmix64(state);
}

Rng::Rng(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& s : s_) s = splitmix64(state);
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::normal() { return ziggurat().sample(*this); }

int64_t Rng::uniform_int(int64_t low, int64_t high) {
  const uint64_t span = static_cast<uint64_t>(high - low);
  return low + static_cast<int64_t>(next_u64() % (span == 0 ? 1 : span));
}

namespace {

// Elements per parallel fill task.
constexpr int64_t kFillGrain = int64_t{1} << 16;

// A float tensor of `dtype` whose element i is fill(begin = i, ...); f32 and
// bf16 are written directly, other float dtypes encoded from f32.
template <class Fill>
Tensor filled_from_stream(const Shape& shape, DType dtype, Fill fill) {
  if (dtype != DType::F32 && dtype != DType::BF16) {
    if (!is_floating(dtype)) throw Error("random tensors are floating point, not " + std::string(dtype_name(dtype)));
    return filled_from_stream(shape, DType::F32, fill).to(dtype);
  }
  Tensor t = Tensor::uninitialized(dtype, shape);
  void* data = t.raw_data();
  parallel_ranges(t.numel(), kFillGrain, [&](int64_t begin, int64_t end) {
    if (dtype == DType::F32) {
      fill(begin, end - begin, static_cast<float*>(data) + begin);
    } else {
      fill(begin, end - begin, static_cast<uint16_t*>(data) + begin);
    }
  });
  return t;
}

}  // namespace

Tensor random_normal(const Shape& shape, uint64_t seed, float mean, float stddev, DType dtype) {
  return filled_from_stream(shape, dtype, [&](int64_t begin, int64_t count, auto* out) {
    simd::fill_normal(seed, begin, count, mean, stddev, out);
  });
}

Tensor random_uniform(const Shape& shape, uint64_t seed, float low, float high, DType dtype) {
  return filled_from_stream(shape, dtype, [&](int64_t begin, int64_t count, auto* out) {
    simd::fill_uniform(seed, begin, count, low, high, out);
  });
}

Tensor random_int(const Shape& shape, uint64_t seed, int64_t low, int64_t high) {
  Tensor t(DType::I64, shape);
  int64_t* p = t.data<int64_t>();
  fill_chunked(t.numel(), seed, [&](Rng& rng, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) p[i] = rng.uniform_int(low, high);
  });
  return t;
}

Tensor filled(const Shape& shape, float value) {
  Tensor t(DType::F32, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value;
  return t;
}

}  // namespace meshtest
