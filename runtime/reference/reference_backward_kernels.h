// Private to runtime/reference: the hand-written gradient kernels of the CPU
// reference's backward (reference_backward.cpp). Each kernel receives the
// forward operands and result (f32, as the forward kernels hold them), the
// gradient of the result `dy`, and which operands want a gradient; it returns
// one tensor per operand (f32, the operand's shape), left empty where not
// wanted. None of this is shared with the compiler's VJP rules (nor with
// reference_backward_ops.cpp, the kernels of the compiler's backward ops),
// hence the namespace of its own.
#pragma once

#include <vector>

#include "core/attrs.h"
#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest::runtime::reference::grad {

using Wanted = std::vector<bool>;   // per operand
using Grads = std::vector<Tensor>;  // per operand; default-constructed where not wanted

// ---- elementwise, reductions, data movement (reference_backward_elementwise.cpp) ----
Tensor unary_backward(OpKind kind, const Tensor& x, const Tensor& y, const Tensor& dy, const Attrs& attrs);
Grads binary_backward(OpKind kind, const Tensor& a, const Tensor& b, const Tensor& dy, const Wanted& want);
Tensor reduce_backward(OpKind kind, const Tensor& x, const Tensor& y, const Tensor& dy, const Attrs& attrs);
Tensor transpose_backward(const Tensor& dy, const Attrs& attrs);
Tensor slice_backward(const Shape& x_shape, const Tensor& dy, const Attrs& attrs);
Grads concat_backward(const std::vector<Tensor>& xs, const Tensor& dy, const Attrs& attrs, const Wanted& want);

// Sum of `t` over the dims it was broadcast along to reach its shape from `shape`.
Tensor sum_to_shape(const Tensor& t, const Shape& shape);
// `t` broadcast (numpy rules) to `shape`, as a new contiguous tensor.
Tensor expand_to(const Tensor& t, const Shape& shape);

// ---- GEMM-based and neural-network ops (reference_backward_nn.cpp) ----
Grads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy, const Wanted& want);
Grads linear_backward(const Tensor& x, const Tensor& w, const Tensor& dy, const Wanted& want);
Grads conv2d_backward(const Tensor& x, const Tensor& w, const Tensor& dy, const Attrs& attrs, const Wanted& want);
Tensor max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs);
Tensor avg_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs);
Tensor global_avg_pool2d_backward(const Tensor& x, const Tensor& dy);
// Inference semantics: mean and var are given (not batch statistics); all
// four parameters get their true gradients.
Grads batch_norm_backward(const std::vector<Tensor>& in, const Tensor& dy, const Attrs& attrs, const Wanted& want);
Grads layer_norm_backward(const std::vector<Tensor>& in, const Tensor& dy, const Attrs& attrs, const Wanted& want);
Tensor softmax_backward(const Tensor& y, const Tensor& dy, const Attrs& attrs);
// Gradient of the table [V, D]: dy rows scatter-added at their ids.
Tensor embedding_backward(const Tensor& ids, const Shape& table_shape, const Tensor& dy);

// C[m,n] = A^T B with A stored [k,m] (leading dim lda) and B [k,n] (ldb); Eigen, split over TBB tasks.
void gemm_at(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
             int64_t k);

}  // namespace meshtest::runtime::reference::grad
