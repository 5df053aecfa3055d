// Private to core/ops/: the checks and shape arithmetic type rules share, and
// the type rules one family borrows from another (backward ops reuse the
// forward op's rule to check the shape of their gradient operand).
#pragma once

#include <string>
#include <vector>

#include "core/op_def.h"

namespace meshtest::ops {

[[noreturn]] void fail(const std::string& message);

// Shape arithmetic on untrusted sizes (e.g. from IR text): overflow is an error, not UB.
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_sub(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);
int64_t checked_numel(const Shape& shape);

void require_rank(const TensorType& t, int64_t rank, const char* what);
void require_float(const TensorType& t, const char* what);
// Operands first..last (clamped to the operand count) share one dtype.
void require_same_dtype(const std::vector<TensorType>& in, size_t first, size_t last);
void require_forward_shape(const TensorType& forward, const TensorType& given, const char* what);

// A two-value attribute such as stride=[sh,sw].
std::vector<int64_t> pair_attr(const OpAttrs& attrs, const std::string& name);
// Output extent of a window of `kernel` (dilated) sliding over `in` padded by `pad`.
int64_t pooled_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation);
// The dtype named by a string attribute; an unknown name is a CompileError
// (parse_dtype throws ParseError, which callers of infer_type do not expect).
DType dtype_attr(const std::string& text);
// A shape attribute (input_shape, weight_shape) of a backward op.
Shape shape_attr(const OpAttrs& attrs, const char* name, size_t rank);

// Type rules shared across families (each defined in its family's file).
TensorType infer_matmul(const TensorType& a, const TensorType& b);                // linalg.cpp
TensorType infer_conv2d(const std::vector<TensorType>& in, const OpAttrs& attrs);  // conv.cpp
TensorType infer_pool(const TensorType& x, const OpAttrs& attrs);                 // pooling.cpp
TensorType infer_slice(const TensorType& x, const OpAttrs& attrs);                // shape.cpp

// Schema fragments shared with the backward ops (each defined in its family's file).
std::vector<AttrSpec> conv2d_geometry_attrs();  // conv.cpp: stride, padding, dilation, groups
std::vector<AttrSpec> pool_window_attrs();      // pooling.cpp: kernel, stride, padding
std::vector<AttrSpec> slice_attrs();            // shape.cpp: axis, start, end, step
std::vector<AttrSpec> avg_pool_attrs();         // pooling.cpp: the window and count_include_pad

}  // namespace meshtest::ops
