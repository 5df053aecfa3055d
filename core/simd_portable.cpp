// core/simd_kernels.inl for any CPU (built without AVX-512: on x86 the
// compiler still uses the SSE/AVX2 the build targets).
#include <cmath>
#include <cstring>

#include "core/simd_table.h"

namespace meshtest::simd {
namespace {

#include "core/simd_kernels.inl"

inline vf lane_sqrt(vf v) {
  vf r;
  for (int i = 0; i < kLanes; ++i) r[i] = std::sqrt(v[i]);
  return r;
}

inline bool any_lane(vi mask) {
  int32_t any = 0;
  for (int i = 0; i < kLanes; ++i) any |= mask[i];
  return any != 0;
}

}  // namespace

const KernelTable& portable_kernels() {
  static const KernelTable table{
      fill_normal_impl<float>, fill_normal_impl<uint16_t>, fill_uniform_impl<float>, fill_uniform_impl<uint16_t>,
      f32_to_bf16_lanes_impl};
  return table;
}

}  // namespace meshtest::simd
