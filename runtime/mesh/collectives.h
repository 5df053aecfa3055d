// Collectives over a named mesh axis (or several) on device tensors: every
// chip's operand in, every chip's result out (index = chip id). Semantics in
// core/ops.h (all_gather, reduce_scatter, all_reduce, all_to_all); sums of
// bf16 shards accumulate in f32 in group-rank order and round once.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ops.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::runtime {

struct CollectiveResult {
  std::vector<Tensor> per_chip;
  int64_t bytes_moved = 0;  // bytes each chip received from other chips, summed over chips
};

// One collective of kind all_gather / reduce_scatter / all_reduce / all_to_all
// with its op attributes (axes by name, dim / split_dim / concat_dim).
// Throws RuntimeError on a bad operand (shape mismatch across the group, a
// dim that does not split).
CollectiveResult run_collective(OpKind kind, const Attrs& attrs, const Mesh& mesh,
                                const std::vector<const Tensor*>& operands);

bool is_collective(OpKind kind);

}  // namespace meshtest::runtime
