// Sixteen f32 lanes as a GCC/Clang vector type, for the scans that read two
// tensors once (comparators/pair_scan.cpp, the anchor's weight check): one
// zmm register under AVX-512, split into narrower ones by the compiler on
// other targets, so the same source is the portable path. Loads of f32 and
// of bf16 bits (widened exactly), lane-wise magnitude and maximum, and the
// reductions of a vector to one figure.
#pragma once

#include <cstdint>
#include <cstring>

namespace meshtest::lanes {

constexpr int kLanes = 16;

using Vf = float __attribute__((vector_size(64)));
using Vi = int32_t __attribute__((vector_size(64)));
using Vu = uint32_t __attribute__((vector_size(64)));
using Vh = uint16_t __attribute__((vector_size(32)));

// The same bits seen as another type of the same size.
template <class To, class From>
inline To as(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// kLanes elements from p (unaligned): f32, or bf16 bits as their f32 values.
inline Vf load(const float* p) {
  Vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline Vf load(const uint16_t* p) {
  Vh h;
  std::memcpy(&h, p, sizeof h);
  return as<Vf>(__builtin_convertvector(h, Vu) << 16);
}

inline Vi lane_index() { return Vi{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}; }

inline Vf magnitude(Vf v) { return as<Vf>(as<Vu>(v) & 0x7fffffffu); }
// Lane-wise maximum that keeps a (NaN-free) running value when b is NaN:
// the scans' sums carry a NaN instead.
inline Vf larger(Vf a, Vf b) { return a < b ? b : a; }

// Reductions in lane order (fixed: the same figure whatever the target).
inline double lane_sum(Vf v) {
  double s = 0;
  for (int l = 0; l < kLanes; ++l) s += static_cast<double>(v[l]);
  return s;
}
inline int64_t lane_sum(Vi v) {
  int64_t s = 0;
  for (int l = 0; l < kLanes; ++l) s += v[l];
  return s;
}
inline float lane_max(Vf v) {
  float m = v[0];
  for (int l = 1; l < kLanes; ++l) m = m < v[l] ? v[l] : m;
  return m;
}
inline bool any_lane(Vi mask) {
  int32_t any = 0;
  for (int l = 0; l < kLanes; ++l) any |= mask[l];
  return any != 0;
}

}  // namespace meshtest::lanes
