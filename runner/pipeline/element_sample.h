// Which elements of a large tensor the op-level golden compares when it
// runs as a check (--op-golden-check, YAML op_golden: true): the
// golden-anchored intermediates and the per-op check of elementwise ops
// compare a sample, so the check costs a fraction of the case it gates; the
// report (--op-golden DIR) compares every element (OpThresholds::
// every_element).
//
// A tensor of more than kSampleAbove elements is read as windows of
// kSampleWindow consecutive elements, and one run of kSampleRun consecutive
// elements is kept from each: an eighth. The first window's run is its
// start and the last window's run ends at the tensor's end (a kernel's
// first and last vectors, where remainders go wrong); the others are placed
// by a mix of the window's index, so no period of the data (a row, a channel
// plane) aliases with the sample. So every window is seen, an error spread
// over more than a window is seen in proportion to its extent, and a wrong
// formula or scale, seen on every element, is seen on thousands.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace meshtest::runner {

inline constexpr int64_t kSampleAbove = int64_t{1} << 16;
inline constexpr int64_t kSampleRun = 64;
inline constexpr int64_t kSampleWindow = 512;

struct SampleRun {
  int64_t start = 0;
  int64_t length = 0;
};

// The runs of a tensor of `numel` elements, in order: one run of the whole
// when numel <= kSampleAbove.
std::vector<SampleRun> sample_runs(int64_t numel);
// How many elements those runs hold.
int64_t sample_size(int64_t numel);

// `t`'s elements at `runs`, flat, in t's dtype (block formats decoded to
// f32); always a copy.
Tensor gather_sample(const Tensor& t, const std::vector<SampleRun>& runs);
// The elements of `operand` broadcast (numpy rules) to `shape` at the runs
// of a tensor of `shape`, flat, in the operand's dtype: the operand an
// elementwise op read for each sampled element of its result.
Tensor gather_broadcast_sample(const Tensor& operand, const Shape& shape, const std::vector<SampleRun>& runs);

}  // namespace meshtest::runner
