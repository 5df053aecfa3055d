// Private to runtime/reference: the kernels the reference executor dispatches
// to, and the small helpers they share. Kernels receive operands as the
// reference holds them (held_dtype: f64 stays f64, other floating tensors are
// f32, integer tensors keep their dtype; the ops of reads_operand_bits get
// their operands in their declared dtype, and reads_operand_as_held's
// operands come as they are: a bf16 linear/conv2d weight, an embedding table)
// and throw RuntimeError without the op prefix; the executor adds "op #N name".
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/parallel.h"
#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest::runtime::reference {

// ---- how the reference holds values (reference_executor.cpp) ----
// The dtype a value of `declared` dtype is held in: f64 for f64, f32 for every
// other float (f16 results rounded to f16 values after each op), integers and
// bool as they are.
DType held_dtype(DType declared);
// Ops that read their operands' exact bits (bitcast_convert, reduce_precision,
// next_after): the executor hands them their operands in the declared dtype
// and widens their result to its held dtype.
bool reads_operand_bits(OpKind kind);

// ---- elementwise (reference_elementwise.cpp) ----
Tensor unary(OpKind kind, const Tensor& x, const Attrs& attrs);
Tensor binary(OpKind kind, const Tensor& a, const Tensor& b);
// `attrs`: div's integer_division ("floor", the default, or "truncate").
Tensor binary(OpKind kind, const Tensor& a, const Tensor& b, const Attrs& attrs);
// Element strides that read `shape` broadcast to the (longer or equal) `out`
// shape: 0 on broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out);
// StableHLO convert semantics (core/dtype_convert.h) into the held dtype: a
// floating target gives f32 (f16: rounded to f16 values; the reference never
// rounds to bf16/bfp8_b), f64 gives f64.
Tensor cast(const Tensor& x, DType target);
Tensor constant(const Attrs& attrs);

// ---- StableHLO elementwise ops (reference_stablehlo_elementwise.cpp) ----
// abs, sign, floor .. tan, not, popcnt, clz, is_finite, sinh .. digamma.
Tensor stablehlo_unary(OpKind kind, const Tensor& x);
// minimum, power, remainder, atan2, and/or/xor, the shifts, next_after.
Tensor stablehlo_binary(OpKind kind, const Tensor& a, const Tensor& b);
Tensor compare(const Tensor& a, const Tensor& b, const Attrs& attrs);
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false);
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi);
Tensor bitcast_convert(const Tensor& x, const Attrs& attrs);
Tensor reduce_precision(const Tensor& x, const Attrs& attrs);
Tensor iota(const Attrs& attrs);

// ---- GEMM, matmul, linear, convolution (reference_linalg.cpp) ----
// C[M,N] = A[M,K] * B, B given as [K,N] (or as [N,K] when b_transposed); all
// row-major with leading dimensions lda/ldb/ldc. Eigen, split over TBB tasks.
void gemm(const float* a, int64_t lda, const float* b, int64_t ldb, bool b_transposed, float* c, int64_t ldc, int64_t m,
          int64_t n, int64_t k);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias);
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs);

// conv2d's geometry, shared by the forward kernel and its gradients.
struct Conv2dGeometry {
  int64_t groups;
  int64_t channels, height, width;  // per group input: Cg, H, W
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t out_h, out_w;
  // A 1x1, stride-1, unpadded conv reads its input as its own im2col matrix.
  bool is_pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0; }
};
// Checks x[N,C,H,W] against w[O,C/g,KH,KW] and the attributes.
Conv2dGeometry conv2d_geometry(const Tensor& x, const Tensor& w, const Attrs& attrs);
// Unfolds one group's input [Cg, H, W] into cols [Cg*KH*KW, OH*OW]; padding reads 0.
void im2col(const float* x, const Conv2dGeometry& g, float* cols);

// ---- pooling, normalization, softmax (reference_nn.cpp) ----
// Pooling geometry, shared by the forward kernels and their gradients;
// `op` names the operand in errors ("max_pool2d input").
struct PoolGeometry {
  int64_t planes, height, width;  // N*C planes of H x W
  int64_t kh, kw, sh, sw, ph, pw;
  int64_t out_h, out_w;
};
PoolGeometry pool_geometry(const Tensor& x, const Attrs& attrs, const char* op);
Tensor max_pool2d(const Tensor& x, const Attrs& attrs);
Tensor avg_pool2d(const Tensor& x, const Attrs& attrs);
Tensor global_avg_pool2d(const Tensor& x);
Tensor batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& var,
                  const Attrs& attrs);
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Attrs& attrs);
Tensor softmax(const Tensor& x, const Attrs& attrs);

// ---- data movement (reference_shape.cpp) ----
Tensor embedding(const Tensor& ids, const Tensor& table);
Tensor reshape(const Tensor& x, const Attrs& attrs);
Tensor transpose(const Tensor& x, const Attrs& attrs);
Tensor concat(const std::vector<Tensor>& xs, const Attrs& attrs);
Tensor slice(const Tensor& x, const Attrs& attrs);

// ---- reductions (reference_reduce.cpp) ----
Tensor reduce(OpKind kind, const Tensor& x, const Attrs& attrs);

// ---- routing (reference_topk.cpp) ----
Tensor topk_mask(const Tensor& x, const Attrs& attrs);

// ---- backward ops of compiler/autodiff (reference_backward_ops.cpp) ----
Tensor greater(const Tensor& a, const Tensor& b);
Tensor conv2d_backward_input(const Tensor& dy, const Tensor& w, const Attrs& attrs);
Tensor conv2d_backward_weight(const Tensor& x, const Tensor& dy, const Attrs& attrs);
Tensor max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs);
Tensor avg_pool2d_backward(const Tensor& dy, const Attrs& attrs);
Tensor embedding_backward(const Tensor& ids, const Tensor& dy, const Attrs& attrs);
Tensor slice_backward(const Tensor& dy, const Attrs& attrs);

// ---- shared helpers ----
// Throws RuntimeError unless `t` is f32 ("<what> must be floating point"; f64:
// "<what> of dtype f64[..] is not supported: this reference kernel computes in f32 only").
void require_f32(const Tensor& t, const char* what);
// Bytes of one element of an element-addressable dtype (not bfp8_b).
size_t element_bytes(DType dtype);
// A two-value attribute such as stride=[sh,sw] (both `fallback` when absent).
std::vector<int64_t> pair_attr(const Attrs& attrs, const std::string& name, int64_t fallback);


// Elements per task for cheap per-element loops.
constexpr int64_t kElementGrain = 1 << 15;

}  // namespace meshtest::runtime::reference
