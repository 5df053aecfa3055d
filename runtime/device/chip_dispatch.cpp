// Host <-> device conversions, bfp8_b decoding and instruction dispatch of
// the simulated chip (see chip_dispatch.h).
#include "runtime/device/chip_dispatch.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/mutation.h"
#include "core/parallel.h"
#include "core/simd.h"
#include "runtime/device/device_kernels.h"
#include "runtime/device/device_mutants.h"

namespace meshtest::runtime {

namespace k = device_kernels;

namespace {

constexpr int64_t kConvertGrain = 1 << 16;

}  // namespace

// Host tensor -> device dtype (f32 -> bf16 in parallel; anything else via Tensor::to).
Tensor to_device(const Tensor& host, DType dtype) {
  if (host.dtype() != DType::F32 || dtype != DType::BF16) return host.to(dtype);
  Tensor out = Tensor::uninitialized(DType::BF16, host.shape());
  const float* in = host.data<float>();
  uint16_t* o = out.data<uint16_t>();
  // The vectorized conversion rounds as store_bf16 does; the bf16_truncation
  // mutant needs store_bf16's own path.
  const bool truncating = mutant_active(MutantId::Bf16Truncation);
  parallel_ranges(host.numel(), kConvertGrain, [&](int64_t begin, int64_t end) {
    if (!truncating) return simd::f32_to_bf16(in + begin, o + begin, end - begin);
    for (int64_t i = begin; i < end; ++i) o[i] = k::store_bf16(in[i]);
  });
  return out;
}

// Device tensor -> host: floats as f32, integers unchanged.
Tensor to_host(const Tensor& device) {
  if (device.dtype() == DType::BFP8_B) return device.to(DType::F32);
  if (device.dtype() != DType::BF16) return device;
  Tensor out = Tensor::uninitialized(DType::F32, device.shape());
  const uint16_t* in = device.data<uint16_t>();
  float* o = out.data<float>();
  parallel_ranges(device.numel(), kConvertGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = k::load_bf16(in[i]);
  });
  return out;
}

// bfp8_b weight -> bf16 tensor holding exactly the decoded values (the
// layout of core/bfp8_layout.h: per face-row block one shared exponent byte,
// then 16 bytes of sign | 7-bit mantissa; value = mantissa * 2^(exponent -
// 127 - 6)). A 7-bit mantissa times a power of two is exact in f32 and bf16.
// The exponent byte block `blk` of `blocks` is scaled by: its own, or under
// the bfp8_exponent_from_next_block mutant the next block's (the last keeps its own).
namespace {

uint8_t shared_exponent(const uint8_t* blocks_data, int64_t blk, int64_t blocks) {
  const int64_t from = mutant_active(MutantId::Bfp8ExponentShift) && blk + 1 < blocks ? blk + 1 : blk;
  return blocks_data[from * static_cast<int64_t>(kBfp8BlockBytes)];
}

}  // namespace

Tensor decode_block_format(const Tensor& t) {
  Tensor out(DType::BF16, t.shape());
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  uint16_t* o = out.data<uint16_t>();
  const int64_t blocks = bfp8_b_block_count(t.shape());
  parallel_ranges(blocks, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t blk = begin; blk < end; ++blk) {
      const uint8_t* block = src + blk * static_cast<int64_t>(kBfp8BlockBytes);
      const float scale = std::ldexp(1.0f, static_cast<int>(shared_exponent(src, blk, blocks)) - 127 - 6);
      const Bfp8BlockSpan span = bfp8_b_block_span(t.shape(), blk);
      for (int64_t i = 0; i < span.count; ++i) {
        const uint8_t byte = block[1 + i];
        const float magnitude = static_cast<float>(byte & 0x7fu) * scale;
        o[span.first + i] = k::store_bf16((byte & 0x80u) ? -magnitude : magnitude);
      }
    }
  });
  return out;
}

namespace {

void dispatch_kernel(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out) {
  if (const DeviceKernel* kernel = device_kernel_table().find(instr.kind)) {
    if (!run_mutated_kernel(instr, in, out, *kernel)) (*kernel)(instr, in, out);
    return;
  }
  throw RuntimeError("no device kernel for op '" + std::string(op_name(instr.kind)) + "'");
}

// Kernel of a GEMM instruction on operands `a`, `b` (the rest of `in` kept, or
// dropped with `with_bias` false so that a second phase group adds no bias).
void dispatch_gemm(const DeviceInstr& instr, const std::vector<const Tensor*>& in, const Tensor& a, const Tensor& b,
                   bool with_bias, Tensor& out) {
  std::vector<const Tensor*> operands = with_bias ? in : std::vector<const Tensor*>(in.begin(), in.begin() + 2);
  operands[0] = &a;
  operands[1] = &b;
  dispatch_kernel(instr, operands, out);
}

}  // namespace

// Reduced math fidelity (set by the compiler on GEMMs; phases and slices in
// compiler/compile_options.h): the activation (operand 0) is split into its
// top fidelity_bits_a explicit mantissa bits and the rest, the weight
// (operand 1) into its top fidelity_bits_b bits and the rest, and the first
// fidelity_phases of the products hi*hi, hi(act)*lo(w), lo(act)*hi(w) are
// summed. By linearity phases 0-1 are one GEMM of hi(act) and the phase-1
// weight; phase 2 is a second GEMM whose bf16 result is added in f32.
void dispatch(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out) {
  if (!instr.attrs.has("fidelity_phases") || in.size() < 2) return dispatch_kernel(instr, in, out);
  const int64_t phases = instr.attrs.get_int("fidelity_phases");
  const int64_t act_bits = instr.attrs.get_int("fidelity_bits_a");
  const int64_t weight_bits = instr.attrs.get_int("fidelity_bits_b");
  const Tensor act_high = k::truncate_mantissa(*in[0], act_bits);
  const Tensor weight_high = k::truncate_mantissa(*in[1], weight_bits);
  const Tensor& first_weight = phases >= 2 ? *in[1] : weight_high;
  if (phases < 3) return dispatch_gemm(instr, in, act_high, first_weight, true, out);
  Tensor high_phases(out.dtype(), out.shape());
  Tensor low_phase(out.dtype(), out.shape());
  dispatch_gemm(instr, in, act_high, first_weight, true, high_phases);
  dispatch_gemm(instr, in, k::mantissa_low_slice(*in[0], act_bits), weight_high, false, low_phase);
  k::binary(OpKind::Add, high_phases, low_phase, out);
}

}  // namespace meshtest::runtime
