// The per-op check of one device op (op-level golden, op_golden.h): the CPU
// reference of that op on the device's own operands, compared with the
// device's result by the per-op thresholds (PCC, norm ratio, the bf16 ulp
// bound of elementwise ops, the accumulation bound of contractions).
// Operands are converted to f32 once: a ConversionCache shares the f32 form
// of a tensor between the op that made it (its result) and the ops that read
// it, and between ops reading one weight or activation. As a check (not
// OpThresholds::every_element), a large elementwise op is compared on its
// window sample (element_sample.h) and a large GEMM, convolution or pooling
// on a sample of its rows or channels (row_sample.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "comparators/metrics.h"
#include "core/device_program.h"
#include "core/tensor.h"

namespace meshtest::runner {

struct OpThresholds;
struct OpGoldenRow;

// f32 forms of recently seen device tensors, keyed by their storage. Each
// entry holds its source tensor, so a key cannot be reused by another
// tensor while the entry lives; oldest entries go past `limit_bytes`. One
// thread at a time.
class ConversionCache {
 public:
  explicit ConversionCache(size_t limit_bytes) : limit_bytes_(limit_bytes) {}
  // `t` as the reference holds it: floats as f32 (shared with `t` when it is
  // f32 already), other dtypes as they are.
  Tensor f32(const Tensor& t);

 private:
  struct Entry {
    Tensor source, converted;
  };
  size_t limit_bytes_;
  size_t held_bytes_ = 0;
  std::unordered_map<const void*, Entry> entries_;
  std::deque<const void*> order_;  // oldest first
};

// One device op to check, holding its operands and result (shared storage).
struct OpToCheck {
  int chip = 0;
  size_t index = 0;
  const DeviceInstr* instr = nullptr;  // in the program, which outlives the check
  std::string layer;
  std::vector<Tensor> operands;  // as the kernel saw them (device dtypes)
  Tensor result;
};

// The row of one op: shapes, status, figures, past or not.
OpGoldenRow check_op(const OpToCheck& op, const OpThresholds& thresholds, ConversionCache& cache);

// Pieces of a row, shared with the collectives' check (collective_check.h);
// device and reference are f32 of one shape.
// Status "checked", PCC, atol, norm ratio and whether the two are equal,
// past when the per-op PCC or scale thresholds fail; returns the
// comparison's figures (judge_rounding takes them).
comparators::OutputMetrics record_comparison(const Tensor& device, const Tensor& reference,
                                             const OpThresholds& thresholds, OpGoldenRow& row);
// A bf16 result rounded once: its ulp figures, held to max_ulp and, with
// judge_spread, to ulp_spread_failure (its bias too with judge_bias).
void judge_rounding(const Tensor& device, const Tensor& reference, const comparators::OutputMetrics& compared,
                    const OpThresholds& thresholds, bool judge_spread, bool judge_bias, OpGoldenRow& row);
// Adds `note` to the row's and marks it past its thresholds.
void flag_row(OpGoldenRow& row, const std::string& note);

}  // namespace meshtest::runner
