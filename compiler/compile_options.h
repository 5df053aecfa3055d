// Options of the device compiler: optimization level, weight dtype, math
// fidelity, fusion switches, memory capacities and passes to skip.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/sharding.h"
#include "core/dtype.h"

namespace meshtest::compiler {

// Multiplier precision of GEMMs (matmul, linear, conv2d), modelled on the
// Tensix matrix unit. Source: the functional model of MVMUL / ELWMUL
// (SrcAFidelityBits, SrcBFidelityBits) in Tenstorrent's Wormhole ISA
// documentation (github.com/tenstorrent/tt-isa-documentation,
// WormholeB0/TensixTile/TensixCoprocessor/MVMUL.md and ELWMUL.md): MVMUL
// computes Dst += SrcB @ SrcA, so a matmul's activation (first operand) sits
// in SrcB and its weight (second operand) in SrcA. The multipliers take at most
// 7 bits of SrcB (implicit one + 6 explicit mantissa bits) and 5 of SrcA
// (implicit one + 4). Fidelity phase p multiplies the high or low slice of each
// operand: bit 0 of p selects SrcA's (weight's) low slice, bit 1 SrcB's
// (activation's); a fidelity runs phases 0..phases-1 and accumulates in f32:
//   LoFi  (1 phase):  act[6] * w[4]
//   HiFi2 (2 phases): act[6] * w[4] + act[6] * w[low]           = act[6] * w
//   HiFi3 (3 phases): ... + act[low] * w[4]                     = act * w - act[low] * w[low]
//   HiFi4 (4 phases): every bf16 bit (exact bf16 product).
// Dropped bits are truncated (masked), not rounded.
enum class MathFidelity { LoFi, HiFi2, HiFi3, HiFi4 };
inline constexpr int kActivationHighSliceBits = 6;  // SrcB: explicit mantissa bits of the high slice
inline constexpr int kWeightHighSliceBits = 4;      // SrcA: explicit mantissa bits of the high slice
inline constexpr int kBf16MantissaBits = 7;
std::string_view math_fidelity_name(MathFidelity fidelity);  // "LoFi", "HiFi2", "HiFi3", "HiFi4"
// Case-insensitive inverse of math_fidelity_name; throws ParseError.
MathFidelity parse_math_fidelity(std::string_view name);

// Fidelity phases the multiplier runs: 1 (LoFi) .. 4 (HiFi4).
int fidelity_phases(MathFidelity fidelity);
// Explicit mantissa bits of the activation (0) / weight (1) operand that
// reach the multiplier in some phase: LoFi 6/4, HiFi2 6/7, HiFi3 and HiFi4 7/7
// (HiFi3 still skips the low x low product, see above).
int fidelity_mantissa_bits(MathFidelity fidelity, int operand);

// 0: safest (no fusion, no const-eval, everything in DRAM); 1: adds
// const-eval and fusion; 2: adds L1 (on-chip SRAM) placement.
inline constexpr int kDefaultOptimizationLevel = 0;

// The defaults below are the defaults of a case whose CLI and YAML say nothing.
struct CompileOptions {
  int optimization_level = kDefaultOptimizationLevel;
  DType weight_dtype = DType::BF16;  // bf16 or bfp8_b (matmul/linear/conv weights)
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool enable_fusion = true;             // the fuse pass as a whole (level >= 1)
  bool enable_composite_ops = true;      // fuse into compiler-only composites (rms_norm, sdpa)
  int64_t dram_capacity_bytes = 0;       // 0: unlimited; otherwise OOM is a CompileError
  int64_t l1_capacity_bytes = 0;         // per chip (all cores); 0: no L1 placement
  std::vector<std::string> skip_passes;  // pass names the pass manager skips
  // Mesh and partition specs: the `shard` pass makes the per-chip graph and the
  // capacities above apply per chip. Null: one chip.
  std::shared_ptr<const ShardingRequest> sharding;

  // Canonical text of every option (part of the compile-cache key).
  std::string fingerprint() const;
};

}  // namespace meshtest::compiler
