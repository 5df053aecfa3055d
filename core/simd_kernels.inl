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

// The kernels below work on a group of N vectors at once, each step applied
// to every vector of the group before the next step: the group's chains are
// independent, so the CPU overlaps their latencies (one vector at a time, a
// polynomial's multiply-add chain leaves the vector units mostly idle). Each
// element goes through the same operations whatever N, so the same bits.

// Element j of the stream keyed (key0, key1): two rounds of 32-bit integer
// finalisers (murmur3's fmix32, then "lowbias32"), a permutation of j.
template <int N>
inline void hash_lanes(vu (&x)[N], uint32_t key0, uint32_t key1) {
  for (int k = 0; k < N; ++k) x[k] ^= key0;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 16;
  for (int k = 0; k < N; ++k) x[k] *= 0x85ebca6bu;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 13;
  for (int k = 0; k < N; ++k) x[k] *= 0xc2b2ae35u;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 16;
  for (int k = 0; k < N; ++k) x[k] ^= key1;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 16;
  for (int k = 0; k < N; ++k) x[k] *= 0x7feb352du;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 15;
  for (int k = 0; k < N; ++k) x[k] *= 0x846ca68bu;
  for (int k = 0; k < N; ++k) x[k] ^= x[k] >> 16;
}

// y = y * m + c for each vector of the group (a Horner step).
template <int N>
inline void horner_step(vf (&y)[N], const vf (&m)[N], float c) {
  for (int k = 0; k < N; ++k) y[k] = y[k] * m[k];
  for (int k = 0; k < N; ++k) y[k] = y[k] + c;
}

// Natural log of positive normal floats (Cephes logf: range reduction to
// [sqrt(1/2), sqrt(2)) and a degree-9 polynomial, about 1 ulp), in place.
template <int N>
inline void log_positive(vf (&v)[N]) {
  vf m[N], ef[N], z[N], y[N];
  for (int k = 0; k < N; ++k) {
    const vi bits = as<vi>(v[k]);
    vi e = (bits >> 23) - 126;  // v = m * 2^e, m in [0.5, 1)
    const vi mbits = (bits & 0x007fffff) | 0x3f000000;
    m[k] = as<vf>(mbits);
    const vi below = m[k] < 0.707106781186547524f;  // -1 where true
    e = e + below;
    m[k] = below ? (m[k] + m[k]) - 1.0f : m[k] - 1.0f;
    ef[k] = __builtin_convertvector(e, vf);
    z[k] = m[k] * m[k];
    y[k] = splat(7.0376836292e-2f);
  }
  constexpr float kTerms[] = {-1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f, 1.4249322787e-1f,
                              -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f, 3.3333331174e-1f};
  for (const float c : kTerms) horner_step(y, m, c);
  for (int k = 0; k < N; ++k) {
    y[k] = y[k] * m[k] * z[k];
    y[k] = y[k] + ef[k] * -2.12194440e-4f;
    y[k] = y[k] + z[k] * -0.5f;
    vf r = m[k] + y[k];
    v[k] = r + ef[k] * 0.693359375f;
  }
}

// Uniform in (0, 1): the top 24 bits of the hash, centred in their interval.
inline vf open_uniform(vu h) {
  return __builtin_convertvector(as<vi>(h >> 8), vf) * 0x1p-24f + 0x1p-25f;
}

// Standard normal by the inverse CDF: sqrt(2) * erfinv(x), x uniform in
// (-1, 1) (M. Giles, "Approximating the erfinv function", GPU Computing Gems
// Jade, 2011: single-precision version, a few ulp). |z| < 5.4.
template <int N>
inline void standard_normal(const vu (&h)[N], vf (&out)[N]) {
  vf x[N], w[N], c[N], p[N];
  for (int k = 0; k < N; ++k) {
    const vi odd = as<vi>(h[k] >> 8) * 2 + (1 - (1 << 24));  // odd, |odd| < 2^24
    x[k] = __builtin_convertvector(odd, vf) * 0x1p-24f;
    w[k] = (1.0f - x[k]) * (1.0f + x[k]);
  }
  log_positive(w);
  for (int k = 0; k < N; ++k) {
    w[k] = -w[k];
    c[k] = w[k] - 2.5f;
    p[k] = splat(2.81022636e-08f);
  }
  constexpr float kCentral[] = {3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
                                -0.00125372503f, -0.00417768164f, 0.246640727f, 1.50140941f};
  for (const float coefficient : kCentral) horner_step(p, c, coefficient);
  for (int k = 0; k < N; ++k) {
    // The tail branch (|x| > 0.9966: 0.34% of lanes) only where a lane needs it.
    const vi tail = w[k] >= 5.0f;
    if (any_lane(tail)) {
      vf t[1] = {lane_sqrt(w[k]) - 3.0f};
      vf q[1] = {splat(-0.000200214257f)};
      constexpr float kTail[] = {0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                                 -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f};
      for (const float coefficient : kTail) horner_step(q, t, coefficient);
      p[k] = tail ? q[0] : p[k];
    }
    const vf erfinv = p[k] * x[k];
    out[k] = erfinv * 1.41421356237309505f;
  }
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
// one 2^32 block: simd.cpp splits there), as f32 or bf16: groups of
// kGroup vectors, then one vector at a time. sample(h, v) maps a group of
// hashes to a group of f32 vectors.
constexpr int kGroup = 8;

template <class Out>
inline void store_vector(Out* out, const vf& v, int64_t n) {
  if constexpr (sizeof(Out) == 4) {
    store_lanes(out, reinterpret_cast<const float*>(&v), n);
  } else {
    const vh b = bf16_lanes(v);
    store_lanes(out, reinterpret_cast<const uint16_t*>(&b), n);
  }
}

template <class Out, class Sample>
inline void fill_stream(uint32_t key0, uint32_t key1, uint32_t begin, int64_t count, Out* out, Sample sample) {
  int64_t i = 0;
  for (; i + kGroup * kLanes <= count; i += kGroup * kLanes) {
    vu h[kGroup];
    for (int k = 0; k < kGroup; ++k) h[k] = lane_iota() + (begin + static_cast<uint32_t>(i + k * kLanes));
    hash_lanes(h, key0, key1);
    vf v[kGroup];
    sample(h, v);
    for (int k = 0; k < kGroup; ++k) store_vector(out + i + k * kLanes, v[k], kLanes);
  }
  for (; i < count; i += kLanes) {
    vu h[1] = {lane_iota() + (begin + static_cast<uint32_t>(i))};
    hash_lanes(h, key0, key1);
    vf v[1];
    sample(h, v);
    store_vector(out + i, v[0], count - i < kLanes ? count - i : kLanes);
  }
}

template <class Out>
inline void fill_normal_impl(const StreamKey& key, uint32_t begin, int64_t count, float mean, float stddev, Out* out) {
  fill_stream(key.key0, key.key1, begin, count, out, [&](const auto& h, auto& v) {
    standard_normal(h, v);
    for (auto& x : v) x = x * stddev + mean;
  });
}

template <class Out>
inline void fill_uniform_impl(const StreamKey& key, uint32_t begin, int64_t count, float low, float high, Out* out) {
  const float span = high - low;
  fill_stream(key.key0, key.key1, begin, count, out, [&](const auto& h, auto& v) {
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) v[k] = open_uniform(h[k]) * span + low;
  });
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
