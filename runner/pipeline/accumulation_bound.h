// The per-op check's accumulation bound (issue 33): a contraction's result
// held, element by element, to the rounding error bound of an f32-accumulated
// K-long dot product, so a kernel that accumulates in bf16 (or any narrower
// type) fails while an f32 one passes whatever the summation order.
//
// For one result element s = sum_k a_k b_k (+ bias) of bf16 operands (their
// products are exact in f32), a K-term f32 sum in any order is within
// gamma_K * S of the exact sum (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.1), where gamma_K = K u / (1 - K u), u = 2^-24 and
// S = sum_k |a_k b_k| (+ |bias|). The device's and the reference's sums both
// are, and the device then rounds to its result dtype (unit roundoff u_out:
// 2^-8 for bf16), so, with |device sum| <= |reference| + 2 gamma_K S,
//
//   |device - reference| <= u_out |reference| + 2 (1 + u_out) gamma_(K+1) S
//
// (K+1: the bias is one more addition). A bf16 accumulator rounds every
// partial sum to 8 bits: its error grows like 2^-8 * S, an order of
// magnitude past 2 gamma_K S for K in the hundreds to thousands
// (2 gamma_4096 = 4.9e-4). S is bounded per element without a second GEMM:
// sum_k |a_k||b_k| <= min(|a|_2 |b|_2, |a|_1 |b|_inf, |a|_inf |b|_1) over the
// row of a and the column of b (Hoelder), so the bound never fails an exact
// f32 accumulation and stays within a small factor of the tight one. An
// element within u_out |reference| (+ the floor) is within the bound whatever
// its S, so S is computed only for the elements that are not (a handful in
// an honest op: those near cancellation).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/device_program.h"
#include "core/tensor.h"

namespace meshtest::runner {

struct AccumulationCheck {
  int64_t k = 0;              // accumulation length (the longest sum of one result element)
  // max over elements of |device - reference| / bound, > 1: past; an element
  // within the rounding term alone counts as |error| / that term (an upper
  // bound of its ratio, at most 1)
  double worst_ratio = 0.0;
  int64_t worst_element = -1;  // flat index of that element
};

// Unit roundoff of an f32 accumulation, and gamma_n = n u / (1 - n u).
inline constexpr double kF32UnitRoundoff = 0x1p-24;
double gamma_n(int64_t n);
// Unit roundoff of a result dtype (bf16 2^-8, f32 2^-24; 0 for others).
double unit_roundoff(DType result);

// The elementwise bound of the elements of one result: for `reference` the
// f32 reference value and `magnitude` an upper bound of sum |a_k b_k|
// (+ |bias|) over the element's k products.
class AccumulationBound {
 public:
  AccumulationBound(int64_t k, DType result);
  double operator()(double reference, double magnitude) const {
    return u_out_ * (reference < 0 ? -reference : reference) + per_magnitude_ * magnitude + floor_;
  }

 private:
  double u_out_;          // the result's unit roundoff
  double per_magnitude_;  // 2 (1 + u_out) gamma_(k+1)
  double floor_;          // f32's subnormal spacing per addition (sums that flush tiny products)
};

// The check of one contraction (matmul, linear, conv2d at full math fidelity;
// reduce_sum, reduce_mean) on its f32 operands (a linear's or conv2d's
// weight may be bf16, as the device holds it), the device result and the
// reference as f32; nullopt for other ops or a reduced-fidelity GEMM (its
// operands are sliced on purpose: docs/explanation/checks.md).
std::optional<AccumulationCheck> check_accumulation(const DeviceInstr& instr, const std::vector<Tensor>& operands,
                                                    const Tensor& device, const Tensor& reference,
                                                    DType result_dtype);

}  // namespace meshtest::runner
