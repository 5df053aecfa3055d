// Private to runtime/reference: one generic strided iterator over a row-major
// output index space, where each of K operands reads with its own element
// strides (0 on broadcast dims). It drives numpy broadcasting (binary ops),
// transpose and slice. Size-1 dims are dropped and dims contiguous for every
// operand are merged, so the innermost run is as long as possible.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

template <size_t K>
struct StridedPlan {
  Shape shape;                                  // collapsed iteration shape, rank >= 1
  std::array<std::vector<int64_t>, K> strides;  // per operand, one per dim of `shape`
  std::array<int64_t, K> base{};                // per operand, offset of the first element
};

// Builds a plan for iterating `shape` (the output, row-major) where operand j
// reads element sum(idx[d] * strides[j][d]) + base[j].
template <size_t K>
StridedPlan<K> make_strided_plan(const Shape& shape, const std::array<std::vector<int64_t>, K>& strides,
                                 const std::array<int64_t, K>& base = {}) {
  StridedPlan<K> plan;
  plan.base = base;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    const bool mergeable = !plan.shape.empty() && [&] {
      for (size_t j = 0; j < K; ++j) {
        if (plan.strides[j].back() != strides[j][d] * shape[d]) return false;
      }
      return true;
    }();
    if (mergeable) {
      plan.shape.back() *= shape[d];
      for (size_t j = 0; j < K; ++j) plan.strides[j].back() = strides[j][d];
    } else {
      plan.shape.push_back(shape[d]);
      for (size_t j = 0; j < K; ++j) plan.strides[j].push_back(strides[j][d]);
    }
  }
  if (plan.shape.empty() || shape_numel(shape) == 0) {
    plan.shape = {shape_numel(shape)};
    for (size_t j = 0; j < K; ++j) plan.strides[j] = {1};
  }
  return plan;
}

// Calls fn(out_pos, offsets, len, steps) for the runs of the innermost dim
// that cover the flat output range [begin, end), in order: output elements
// [out_pos, out_pos+len) read operand j at offsets[j] + i * steps[j].
template <size_t K, class F>
void for_each_strided_run_in(const StridedPlan<K>& plan, int64_t begin, int64_t end, F&& fn) {
  const size_t rank = plan.shape.size();
  const int64_t inner = plan.shape[rank - 1];
  std::array<int64_t, K> steps;
  for (size_t j = 0; j < K; ++j) steps[j] = plan.strides[j][rank - 1];
  std::vector<int64_t> idx(rank);
  std::array<int64_t, K> off = plan.base;
  int64_t rem = begin;
  for (size_t d = rank; d-- > 0;) {
    idx[d] = rem % plan.shape[d];
    rem /= plan.shape[d];
    for (size_t j = 0; j < K; ++j) off[j] += idx[d] * plan.strides[j][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t len = std::min(inner - idx[rank - 1], end - pos);
    fn(pos, off, len, steps);
    pos += len;
    idx[rank - 1] += len;
    for (size_t j = 0; j < K; ++j) off[j] += len * steps[j];
    // Carry into the outer dims.
    for (size_t d = rank - 1; d > 0 && idx[d] == plan.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (size_t j = 0; j < K; ++j) off[j] += plan.strides[j][d - 1] - plan.shape[d] * plan.strides[j][d];
    }
  }
}

// The same over the whole index space, split into TBB tasks.
template <size_t K, class F>
void for_each_strided_run(const StridedPlan<K>& plan, F&& fn) {
  parallel_ranges(shape_numel(plan.shape), kElementGrain,
                  [&](int64_t begin, int64_t end) { for_each_strided_run_in(plan, begin, end, fn); });
}

// Copies the strided view of `x` (element strides `strides`, first element at
// `base`) into a new contiguous tensor of `shape`; any element dtype.
Tensor copy_strided(const Tensor& x, const Shape& shape, const std::vector<int64_t>& strides, int64_t base);

}  // namespace meshtest::runtime::reference
