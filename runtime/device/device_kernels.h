// Device kernels of the simulated chip (private to runtime/device/).
// Float tensors are bf16 (uint16_t storage); math happens in f32 and every
// result is rounded once to bf16. Integer tensors keep their dtype. Outputs are preallocated by the chip with the output buffer's type:
// zeroed, except for the kernels that writes_every_element lists
// (simulated_chip.h), which must write every element themselves.
// This code shares nothing with runtime/reference on purpose: a device bug
// must show up as a PCC drop against the CPU reference.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/attrs.h"
#include "core/mutation.h"
#include "core/parallel.h"
#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest::runtime::device_kernels {

// bf16 <-> f32 exactly as core/dtype.h defines it (round to nearest even,
// quiet NaN), inlined for the inner loops. Under the bf16_truncation mutant
// (core/mutation.h) every f32 -> bf16 rounding of the device truncates.
inline float load_bf16(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

inline uint16_t store_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  if (mutant_active(MutantId::Bf16Truncation)) [[unlikely]] return static_cast<uint16_t>(bits >> 16);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}


// Throws RuntimeError unless `t` is bf16 (what every float kernel expects).
void require_bf16(const Tensor& t, const char* what);

// ---- device_kernels_elementwise.cpp ----
void unary(OpKind kind, const Attrs& attrs, const Tensor& x, Tensor& out);
void binary(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out);
// `attrs`: div's integer_division ("floor", the default, or "truncate").
void binary(OpKind kind, const Attrs& attrs, const Tensor& a, const Tensor& b, Tensor& out);
// StableHLO convert semantics (core/dtype_convert.h) between the buffers' dtypes.
void cast(const Tensor& x, Tensor& out);
void constant(const Attrs& attrs, Tensor& out);

// ---- device_kernels_stablehlo.cpp: the StableHLO elementwise ops ----
// abs, sign, floor .. tan, not, popcnt, clz, is_finite, sinh .. digamma.
void stablehlo_unary(OpKind kind, const Tensor& x, Tensor& out);
// minimum, power, remainder, atan2, and/or/xor, the shifts, next_after.
void stablehlo_binary(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out);
// add, sub, mul, div, maximum on integers (not bool), wrapping; division floors
// (a zero divisor is an error) or truncates as StableHLO divide.
void integer_arithmetic(OpKind kind, bool truncating_division, const Tensor& a, const Tensor& b, Tensor& out);
void integer_neg(const Tensor& x, Tensor& out);  // wraps: -INT_MIN = INT_MIN
void compare(const Tensor& a, const Tensor& b, const Attrs& attrs, Tensor& out);
void select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false, Tensor& out);
void clamp(const Tensor& lo, const Tensor& x, const Tensor& hi, Tensor& out);
void bitcast_convert(const Tensor& x, const Attrs& attrs, Tensor& out);
void reduce_precision(const Tensor& x, const Attrs& attrs, Tensor& out);
void iota(const Attrs& attrs, Tensor& out);

// ---- device_kernels_dnnl.cpp (oneDNN, bf16 operands, f32 accumulation) ----
void matmul(const Tensor& a, const Tensor& b, Tensor& out);
void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out);
void conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs, Tensor& out);
// max_pool2d, avg_pool2d, global_avg_pool2d.
void pool2d(OpKind kind, const Attrs& attrs, const Tensor& x, Tensor& out);

// ---- device_kernels_nn.cpp ----
void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& var,
                const Attrs& attrs, Tensor& out);
// variance_ddof: the variance divides by d - variance_ddof (0: as the op defines it).
void layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Attrs& attrs, Tensor& out,
                int64_t variance_ddof = 0);
void softmax(const Tensor& x, const Attrs& attrs, Tensor& out);
// reduce_sum, reduce_mean, reduce_max.
void reduce(OpKind kind, const Tensor& x, const Attrs& attrs, Tensor& out);

// ---- device_kernels_shape.cpp (any element type) ----
void copy_reshape(const Tensor& x, Tensor& out);
void transpose(const Tensor& x, const Attrs& attrs, Tensor& out);
void concat(const std::vector<const Tensor*>& xs, const Attrs& attrs, Tensor& out);
void slice(const Tensor& x, const Attrs& attrs, Tensor& out);
void embedding(const Tensor& ids, const Tensor& table, Tensor& out);
// embedding_shard: `table` holds rows start[0].. of the whole table; other ids give zeros.
void embedding_shard(const Tensor& ids, const Tensor& table, const Tensor& start, Tensor& out);

// ---- device_kernels_composite.cpp (compiler composites; f32 inside) ----
void rms_norm(const Tensor& x, const Tensor& w, const Attrs& attrs, Tensor& out);
// sdpa(q, kt, v[, mask]){scale}
void sdpa(const std::vector<const Tensor*>& in, const Attrs& attrs, Tensor& out);
// ---- device_kernels_topk.cpp ----
// topk_mask(x){k, axis}: bf16 1.0 at the k largest values along axis.
void topk_mask(const Tensor& x, const Attrs& attrs, Tensor& out);

// ---- device_kernels_backward.cpp (backward ops of compiler/autodiff) ----
void greater(const Tensor& a, const Tensor& b, Tensor& out);
void conv2d_backward_input(const Tensor& dy, const Tensor& w, const Attrs& attrs, Tensor& out);
void conv2d_backward_weight(const Tensor& x, const Tensor& dy, const Attrs& attrs, Tensor& out);
void max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs, Tensor& out);
void avg_pool2d_backward(const Tensor& dy, const Attrs& attrs, Tensor& out);
void embedding_backward(const Tensor& ids, const Tensor& dy, Tensor& out);
void slice_backward(const Tensor& dy, const Attrs& attrs, Tensor& out);

// Math fidelity: keeps the top `bits` (< 7) explicit mantissa bits of a bf16 tensor.
Tensor truncate_mantissa(const Tensor& x, int64_t bits);
// The rest: x - truncate_mantissa(x, bits) (exact in bf16; zero when bits >= 7).
Tensor mantissa_low_slice(const Tensor& x, int64_t bits);

}  // namespace meshtest::runtime::device_kernels
