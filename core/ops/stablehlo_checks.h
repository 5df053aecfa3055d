// Private to core/ops/: the checks the type rules of the StableHLO structural
// ops share (dimension-number lists, windows, index operands). Each failure
// is a CompileError naming the attribute or operand at fault.
#pragma once

#include <string>
#include <vector>

#include "core/op_def.h"

namespace meshtest::ops {

// The enum attribute `name` naming a combiner of reduce, reduce_window,
// scatter or select_and_scatter: add, mul, max, min, and, or, xor, and, when
// `with_assign`, assign (scatter: the update replaces the value).
AttrSpec required_combiner(std::string_view name, bool with_assign);
AttrSpec optional_combiner(std::string_view name, std::string_view fallback);

// Every entry of the list attribute `name` lies in [0, bound).
void require_dims_in_range(const std::vector<int64_t>& dims, int64_t bound, const std::string& name);
// No entry of `dims` repeats (`name` says which list, e.g. "collapsed_slice_dims + operand_batching_dims").
void require_unique_dims(const std::vector<int64_t>& dims, const std::string& name);
void require_sorted_dims(const std::vector<int64_t>& dims, const std::string& name);
// `list` has exactly `size` entries.
void require_list_size(const std::vector<int64_t>& list, size_t size, const std::string& name);
// `a` followed by `b`.
std::vector<int64_t> concat_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
bool contains_dim(const std::vector<int64_t>& dims, int64_t d);

// The list attribute `name`, or `size` copies of `fill` when it is absent or
// empty (the StableHLO default); otherwise it must have `size` entries.
std::vector<int64_t> ints_or_fill(const OpAttrs& attrs, const std::string& name, size_t size, int64_t fill);
// Every entry of `list` is at least `min` (e.g. strides and dilations: 1).
void require_at_least(const std::vector<int64_t>& list, int64_t min, const std::string& name);

// An integer (not bool) tensor such as gather's start indices.
void require_index_tensor(const TensorType& t, const std::string& what);
// A rank-0 tensor of `dtype` (an init or padding value).
void require_scalar_of(const TensorType& t, DType dtype, const std::string& what);
// The combiners and/or/xor need integer or bool elements.
void require_combiner_dtype(const std::string& combiner, DType dtype, const std::string& attr);

// Windows along one dimension of reduce_window / convolution (StableHLO's
// num_windows): the input of `size` dilated by `base_dilation`, padded by
// `low`/`high`, a window of `window` dilated by `window_dilation`, moved by `stride`.
int64_t window_count(int64_t size, int64_t base_dilation, int64_t low, int64_t high, int64_t window,
                     int64_t window_dilation, int64_t stride);

}  // namespace meshtest::ops
