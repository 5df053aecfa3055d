// The figures of a (device, golden) pair in one read of both tensors: means,
// centred sums (PCC), sums of squares (norms, relative L2), max |d - g|,
// max |g|, and the elements not allclose / not equal. compare_tensors
// (metrics.h) turns them into a verdict.
//
// Exactness, per figure:
//  - max |d - g|, the allclose and equality counts and max |g| are exact
//    (as computed in f64 on every element);
//  - the sums behind PCC, the norms and the relative L2 are within about
//    2^-19 of their value relative to the sum of their terms' magnitudes
//    (f32 and bf16 pairs: each block of kBlock elements is summed in f32
//    around its own mean and the blocks are combined in f64), so a PCC is
//    within about 1e-6 of its exact value; f64 pairs and other dtypes are
//    summed in f64 throughout;
//  - NaN or inf in either tensor makes the sums non-finite (the caller
//    counts them), never a wrong finite figure.
// Fixed chunks and blocks: the same figures whatever the thread count.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace meshtest::comparators {

struct PairStats {
  int64_t n = 0;
  double mean_d = 0, mean_g = 0;
  double m2_d = 0, m2_g = 0, c_dg = 0;  // sums of squared / cross deviations from the means
  double sq_diff = 0, sq_g = 0, sq_d = 0;
  double max_abs = 0;  // largest |device - golden|
  double max_g = 0;    // largest |golden|
  int64_t not_close = 0, not_equal = 0;
};

struct Tolerance {
  double rtol, atol;  // allclose: |d - g| <= atol + rtol |g|
};

// Both tensors of one shape. f32 and f64 pairs, and a bf16 device beside an
// f32 golden, are read in place; any other dtype is widened to f64 once.
// Equality of two integer tensors of one dtype is counted on their stored
// values.
PairStats scan_pair(const Tensor& device, const Tensor& golden, Tolerance tol);

}  // namespace meshtest::comparators
