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

// Multiplier precision of GEMMs (matmul, linear, conv2d, sdpa), modelled on
// Tensix-style hardware whose multiplier takes a narrow slice of each
// operand's mantissa per phase: one phase (LoFi) keeps the top 4 explicit
// mantissa bits of the activation operand and the top 6 of the weight
// operand; two phases (HiFi2) keep all 7 activation bits and 6 weight bits;
// four phases (HiFi4) keep every bf16 bit. Dropped bits are truncated (not
// rounded), accumulation stays f32.
enum class MathFidelity { LoFi, HiFi2, HiFi4 };
std::string_view math_fidelity_name(MathFidelity fidelity);  // "LoFi", "HiFi2", "HiFi4"
// Case-insensitive inverse of math_fidelity_name; throws ParseError.
MathFidelity parse_math_fidelity(std::string_view name);

// Explicit mantissa bits kept of the activation (0) / weight (1) operand.
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
