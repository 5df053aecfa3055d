// Private to runtime/reference: the kernels of the StableHLO structural ops
// (broadcast_in_dim .. take_along_axis) and the helpers they share. Every
// kernel takes any element dtype (core/dtype_dispatch.h): data movement
// copies elements, arithmetic computes in the dtype's compute type (f64 in
// f64, f32/f16/bf16 in f32 rounded to the element type at the result,
// integers exact with two's-complement wrap-around). Errors are RuntimeError
// without the op prefix (the executor adds "op #N name").
#pragma once

#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/tensor.h"

namespace meshtest::runtime::reference {

// ---- data movement (reference_movement.cpp) ----
Tensor broadcast_in_dim(const Tensor& x, const Attrs& attrs);
Tensor pad(const Tensor& x, const Tensor& value, const Attrs& attrs);
Tensor reverse(const Tensor& x, const Attrs& attrs);
// in = (x, start0, start1, ...)
Tensor dynamic_slice(const std::vector<Tensor>& in, const Attrs& attrs);
// in = (x, update, start0, ...)
Tensor dynamic_update_slice(const std::vector<Tensor>& in);
Tensor take_along_axis(const Tensor& x, const Tensor& indices, const Attrs& attrs);

// ---- gather and scatter (reference_gather_scatter.cpp) ----
Tensor gather(const Tensor& operand, const Tensor& start_indices, const Attrs& attrs);
Tensor scatter(const Tensor& operand, const Tensor& indices, const Tensor& updates, const Attrs& attrs);

// ---- dot_general and convolution (reference_dot_conv_general.cpp) ----
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs);
Tensor convolution(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs);

// ---- reductions and windows (reference_windows.cpp) ----
Tensor reduce_with(const Tensor& x, const Tensor& init, const Attrs& attrs);
Tensor reduce_arg(const Tensor& x, const Attrs& attrs);
Tensor reduce_window(const Tensor& x, const Tensor& init, const Attrs& attrs);
Tensor select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init, const Attrs& attrs);

// ---- sorting (reference_sort.cpp) ----
Tensor sort_permutation(const std::vector<Tensor>& keys, const Attrs& attrs);

// ---- shared helpers (reference_movement.cpp) ----
// Copies the box of `box` elements from `src` (element strides, first element
// at src_base) into `dst` (likewise); both of one dtype, any dtype.
void copy_box(const Tensor& src, Tensor& dst, const Shape& box, const std::vector<int64_t>& src_strides,
              int64_t src_base, const std::vector<int64_t>& dst_strides, int64_t dst_base);
// A tensor of `shape` with every element `value` (a scalar of the same dtype).
Tensor filled(const Tensor& value, const Shape& shape);

// ---- shared helpers (reference_index_helpers.cpp) ----
// The values of an integer tensor as int64 (unsigned values past int64's
// range saturate, so they stay out of bounds).
std::vector<int64_t> index_values(const Tensor& t);
// The dtype the reference holds a `declared` result of a computing op in when
// its operands are held as `operand`: f32 for bf16/f16 results of f32-held
// operands (the executor widens those floats), else `declared`.
DType held_result_dtype(DType declared, DType operand);
// The list attribute `name`, or `size` copies of `fill` when absent or empty.
std::vector<int64_t> ints_or_fill(const Attrs& attrs, const std::string& name, size_t size, int64_t fill);
// The window geometry along one dimension (StableHLO's num_windows).
int64_t window_count(int64_t size, int64_t base_dilation, int64_t low, int64_t high, int64_t window,
                     int64_t window_dilation, int64_t stride);

}  // namespace meshtest::runtime::reference
