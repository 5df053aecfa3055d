// The bodies of core/simd.h's kernels, written once with GCC/Clang vector
// extensions and compiled once per instruction set (simd_portable.cpp,
// simd_avx512.cpp). Every step is an exactly rounded IEEE operation (add,
// multiply, divide, square root, int <-> float) or integer arithmetic, and
// both files are built with -ffp-contract=off, so every build gives the same
// bits: the instruction set only changes how many lanes run at once.
//
// Included inside the includer's own namespace (no include guard on purpose).

using vf = float __attribute__((vector_size(64)));
using vi = int32_t __attribute__((vector_size(64)));
using vu = uint32_t __attribute__((vector_size(64)));
using vh = uint16_t __attribute__((vector_size(32)));
constexpr int kLanes = 16;

// The same bits seen as another type of the same size.
template <class To, class From>
inline To as(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

inline vf splat(float c) { return vf{} + c; }

// Correctly rounded square root per lane, and whether any lane of a
// comparison result is set (both defined by the includer).
inline vf lane_sqrt(vf v);
inline bool any_lane(vi mask);

inline vu lane_iota() { return vu{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}; }

// Element j of the stream keyed (key0, key1): two rounds of 32-bit integer
// finalisers (murmur3's fmix32, then "lowbias32"), a permutation of j.
inline vu hash_lanes(vu j, uint32_t key0, uint32_t key1) {
  vu x = j ^ key0;
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  x ^= key1;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Natural log of positive normal floats (Cephes logf: range reduction to
// [sqrt(1/2), sqrt(2)) and a degree-9 polynomial, about 1 ulp).
inline vf log_positive(vf v) {
  const vi bits = as<vi>(v);
  vi e = (bits >> 23) - 126;  // v = m * 2^e, m in [0.5, 1)
  const vi mbits = (bits & 0x007fffff) | 0x3f000000;
  vf m = as<vf>(mbits);
  const vi below = m < 0.707106781186547524f;  // -1 where true
  e = e + below;
  m = below ? (m + m) - 1.0f : m - 1.0f;
  const vf ef = __builtin_convertvector(e, vf);
  const vf z = m * m;
  vf y = splat(7.0376836292e-2f);
  y = y * m + -1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m + -1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m + -1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m + -2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  y = y + ef * -2.12194440e-4f;
  y = y + z * -0.5f;
  vf r = m + y;
  r = r + ef * 0.693359375f;
  return r;
}

// Uniform in (0, 1): the top 24 bits of the hash, centred in their interval.
inline vf open_uniform(vu h) {
  return __builtin_convertvector(as<vi>(h >> 8), vf) * 0x1p-24f + 0x1p-25f;
}

// Standard normal by the inverse CDF: sqrt(2) * erfinv(x), x uniform in
// (-1, 1) (M. Giles, "Approximating the erfinv function", GPU Computing Gems
// Jade, 2011: single-precision version, a few ulp). |z| < 5.4.
inline vf standard_normal(vu h) {
  const vi k = as<vi>(h >> 8) * 2 + (1 - (1 << 24));  // odd, |k| < 2^24
  const vf x = __builtin_convertvector(k, vf) * 0x1p-24f;
  const vf w = -log_positive((1.0f - x) * (1.0f + x));
  const vf c = w - 2.5f;
  vf p = splat(2.81022636e-08f);
  p = p * c + 3.43273939e-07f;
  p = p * c + -3.5233877e-06f;
  p = p * c + -4.39150654e-06f;
  p = p * c + 0.00021858087f;
  p = p * c + -0.00125372503f;
  p = p * c + -0.00417768164f;
  p = p * c + 0.246640727f;
  p = p * c + 1.50140941f;
  // The tail branch (|x| > 0.9966: 0.34% of lanes) only where a lane needs it.
  const vi tail = w >= 5.0f;
  if (any_lane(tail)) {
    const vf t = lane_sqrt(w) - 3.0f;
    vf q = splat(-0.000200214257f);
    q = q * t + 0.000100950558f;
    q = q * t + 0.00134934322f;
    q = q * t + -0.00367342844f;
    q = q * t + 0.00573950773f;
    q = q * t + -0.0076224613f;
    q = q * t + 0.00943887047f;
    q = q * t + 1.00167406f;
    q = q * t + 2.83297682f;
    p = tail ? q : p;
  }
  const vf erfinv = p * x;
  return erfinv * 1.41421356237309505f;
}

// f32 -> bf16 bits exactly as f32_to_bf16 (core/dtype.h): round to nearest
// even, NaN kept quiet with its sign.
inline vh bf16_lanes(vf f) {
  const vu bits = as<vu>(f);
  const vu rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const vu quiet = (bits >> 16) | 0x0040u;
  const vu is_nan = (bits & 0x7fffffffu) > 0x7f800000u;
  return __builtin_convertvector(is_nan ? quiet : rounded, vh);
}

template <class T>
inline void store_lanes(T* out, const T* lanes, int64_t count) {
  if (count == kLanes) {
    std::memcpy(out, lanes, sizeof(T) * kLanes);
  } else {
    std::memcpy(out, lanes, sizeof(T) * static_cast<size_t>(count));
  }
}

// Elements [begin, begin + count) of the stream (begin + count stays within
// one 2^32 block: simd.cpp splits there), as f32 or bf16.
template <class Out, class Sample>
inline void fill_stream(uint32_t key0, uint32_t key1, uint32_t begin, int64_t count, Out* out, Sample sample) {
  for (int64_t i = 0; i < count; i += kLanes) {
    const vu j = lane_iota() + (begin + static_cast<uint32_t>(i));
    const vf v = sample(hash_lanes(j, key0, key1));
    const int64_t n = count - i < kLanes ? count - i : kLanes;
    if constexpr (sizeof(Out) == 4) {
      store_lanes(out + i, reinterpret_cast<const float*>(&v), n);
    } else {
      const vh b = bf16_lanes(v);
      store_lanes(out + i, reinterpret_cast<const uint16_t*>(&b), n);
    }
  }
}

template <class Out>
inline void fill_normal_impl(const StreamKey& key, uint32_t begin, int64_t count, float mean, float stddev, Out* out) {
  fill_stream(key.key0, key.key1, begin, count, out,
              [&](vu h) { return standard_normal(h) * stddev + mean; });
}

template <class Out>
inline void fill_uniform_impl(const StreamKey& key, uint32_t begin, int64_t count, float low, float high, Out* out) {
  const float span = high - low;
  fill_stream(key.key0, key.key1, begin, count, out, [&](vu h) { return open_uniform(h) * span + low; });
}

inline void f32_to_bf16_lanes_impl(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    vf v;
    std::memcpy(&v, in + i, sizeof v);
    const vh b = bf16_lanes(v);
    std::memcpy(out + i, &b, sizeof b);
  }
  if (i < n) {
    vf v = {};
    std::memcpy(&v, in + i, sizeof(float) * static_cast<size_t>(n - i));
    const vh b = bf16_lanes(v);
    std::memcpy(out + i, &b, sizeof(uint16_t) * static_cast<size_t>(n - i));
  }
}
