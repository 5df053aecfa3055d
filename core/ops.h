// The op set of the graph IR: one table (MESHTEST_OPS) lists every op with its
// text name and arity; infer_type() defines each op's result type. This header
// is the semantic spec both executors (CPU reference, simulated chip) follow.
//
// Semantics (shapes row-major, N = batch):
//  unary (same type):  relu, gelu{approximate="none"|"tanh"}, tanh, exp, log,
//                      sqrt, rsqrt, neg, sigmoid, silu, erf, sin, cos
//  binary (numpy broadcasting, same dtype): add, sub, mul, div, maximum
//  cast(x){dtype}                     value conversion
//  constant(){value, dtype, shape}    tensor filled with `value`
//  matmul(a[...,M,K], b[...,K,N])     batch dims broadcast; rank >= 2 each
//  linear(x[...,K], w[N,K], bias[N]?) x @ w^T + bias (PyTorch layout)
//  conv2d(x[N,C,H,W], w[O,C/g,KH,KW], bias[O]?){stride=[sh,sw],
//         padding=[ph,pw], dilation=[dh,dw], groups=g}   (cross-correlation)
//  max_pool2d(x){kernel=[kh,kw], stride, padding}        padding is -inf
//  avg_pool2d(x){kernel, stride, padding, count_include_pad=0|1}
//  global_avg_pool2d(x[N,C,H,W]) -> [N,C,1,1]
//  batch_norm(x, scale[C], bias[C], mean[C], var[C]){eps}   channel dim 1,
//         y = (x - mean) / sqrt(var + eps) * scale + bias
//  layer_norm(x, gamma[D], beta[D]){eps}   over the last dim (biased variance)
//  softmax(x){axis}
//  embedding(ids[...] i32/i64, table[V,D]) -> [..., D]; out-of-range id = error
//  reshape(x){shape}                  shape fully resolved (no -1 in the IR)
//  transpose(x){perm}
//  concat(x0, x1, ...){axis}
//  slice(x){axis, start, end, step}   python semantics: negative start/end
//                                     count from the end, clamped; step > 0
//  reduce_sum / reduce_mean / reduce_max(x){axes=[...], keepdim=0|1}
//  topk_mask(x){k, axis}             1 at the k largest values along `axis`
//                                     (ties: lower index first), 0 elsewhere;
//                                     same type as x (mixture-of-experts routing)
// Collective ops (made by the compiler's shard pass, compiler/sharding.h; only
// a mesh runs them): x is one chip's shard; the group is the chips that share
// every mesh coordinate except those of `axes` (comma-separated mesh axis
// names, e.g. "model" or "batch,model"), `group_size` of them, ordered
// row-major by their coordinates along `axes`.
//  all_gather(x){axes, group_size, dim}      group's shards concatenated on dim
//  reduce_scatter(x){axes, group_size, dim}  group's sum, block r of `dim` to member r
//  all_reduce(x){axes, group_size}           group's elementwise sum, on every member
//  all_to_all(x){axes, group_size, split_dim, concat_dim}  block r of split_dim
//         goes to member r; received blocks concatenated on concat_dim in member order
//  shard_slice(x){axes, group_size, dim}     member r keeps block r of its own
//         (replicated) x along dim; no data moves between chips
//  embedding_shard(ids[...], table[Vs,D], start i64[1]) -> [..., D]: one chip's
//         part of a vocabulary-split embedding: rows start..start+Vs-1 of the
//         whole table are this chip's; ids outside them give zero rows (their
//         chip adds them in the all_reduce that follows); negative ids = error
// Backward ops (made by the compiler's autodiff, compiler/autodiff.h):
//  greater(a, b)                      1 where a > b, else 0 (numpy broadcasting,
//                                     same float dtype); no gradient of its own
//  conv2d_backward_input(dy[N,O,OH,OW], w[O,C/g,KH,KW]){stride, padding,
//         dilation, groups, input_shape=[N,C,H,W]}   d conv2d / d x applied to dy
//         (the transposed convolution); input_shape fixes H, W
//  conv2d_backward_weight(x[N,C,H,W], dy[N,O,OH,OW]){stride, padding, dilation,
//         groups, weight_shape=[O,C/g,KH,KW]}        d conv2d / d w applied to dy
//  max_pool2d_backward(x, dy){kernel, stride, padding}   -> type of x: each dy
//         element is added at the position of its window's maximum (the first
//         in row-major window order on ties; padding never wins)
//  avg_pool2d_backward(dy){kernel, stride, padding, count_include_pad,
//         input_shape}   each dy element spread evenly over its window's
//         elements (divisor as in avg_pool2d; padding positions dropped)
//  embedding_backward(ids[...], dy[..., D]){num_embeddings=V} -> [V, D]
//         scatter-add: row ids[i] accumulates dy[i, :]; out-of-range id = error
//  slice_backward(dy){axis, start, end, step, input_shape}  -> input_shape:
//         zeros with dy written where slice(x){axis,start,end,step} reads
// Composite ops (made by the compiler's `fuse` pass, never by loaders):
//  rms_norm(x[...,D], w[D]){eps, form="cast_before_weight"|"cast_after_weight"}
//         y = x * rsqrt(mean(x^2 over the last dim) + eps) * w, result dtype of x
//  sdpa(q[...,S,D], kt[...,D,T], v[...,T,E], mask?){scale}
//         softmax(q @ kt * scale + mask, last dim) @ v -> [...,S,E]; q, kt, v
//         share batch dims, mask broadcasts to [...,S,T]
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace meshtest {

// X(enum name, text name, min inputs, max inputs (-1: any number))
#define MESHTEST_OPS(X)                          \
  X(Relu, "relu", 1, 1)                          \
  X(Gelu, "gelu", 1, 1)                          \
  X(Tanh, "tanh", 1, 1)                          \
  X(Exp, "exp", 1, 1)                            \
  X(Log, "log", 1, 1)                            \
  X(Sqrt, "sqrt", 1, 1)                          \
  X(Rsqrt, "rsqrt", 1, 1)                        \
  X(Neg, "neg", 1, 1)                            \
  X(Sigmoid, "sigmoid", 1, 1)                    \
  X(Silu, "silu", 1, 1)                          \
  X(Erf, "erf", 1, 1)                            \
  X(Sin, "sin", 1, 1)                            \
  X(Cos, "cos", 1, 1)                            \
  X(Add, "add", 2, 2)                            \
  X(Sub, "sub", 2, 2)                            \
  X(Mul, "mul", 2, 2)                            \
  X(Div, "div", 2, 2)                            \
  X(Maximum, "maximum", 2, 2)                    \
  X(Cast, "cast", 1, 1)                          \
  X(Constant, "constant", 0, 0)                  \
  X(Matmul, "matmul", 2, 2)                      \
  X(Linear, "linear", 2, 3)                      \
  X(Conv2d, "conv2d", 2, 3)                      \
  X(MaxPool2d, "max_pool2d", 1, 1)               \
  X(AvgPool2d, "avg_pool2d", 1, 1)               \
  X(GlobalAvgPool2d, "global_avg_pool2d", 1, 1)  \
  X(BatchNorm, "batch_norm", 5, 5)               \
  X(LayerNorm, "layer_norm", 3, 3)               \
  X(Softmax, "softmax", 1, 1)                    \
  X(Embedding, "embedding", 2, 2)                \
  X(Reshape, "reshape", 1, 1)                    \
  X(Transpose, "transpose", 1, 1)                \
  X(Concat, "concat", 1, -1)                     \
  X(Slice, "slice", 1, 1)                        \
  X(ReduceSum, "reduce_sum", 1, 1)               \
  X(ReduceMean, "reduce_mean", 1, 1)             \
  X(ReduceMax, "reduce_max", 1, 1)               \
  X(AllGather, "all_gather", 1, 1)               \
  X(ReduceScatter, "reduce_scatter", 1, 1)       \
  X(AllReduce, "all_reduce", 1, 1)               \
  X(AllToAll, "all_to_all", 1, 1)                \
  X(RmsNorm, "rms_norm", 2, 2)                   \
  X(Sdpa, "sdpa", 3, 4)                          \
  X(TopkMask, "topk_mask", 1, 1)                 \
  X(Greater, "greater", 2, 2)                    \
  X(Conv2dBackwardInput, "conv2d_backward_input", 2, 2)   \
  X(Conv2dBackwardWeight, "conv2d_backward_weight", 2, 2) \
  X(MaxPool2dBackward, "max_pool2d_backward", 2, 2)       \
  X(AvgPool2dBackward, "avg_pool2d_backward", 1, 1)       \
  X(EmbeddingBackward, "embedding_backward", 2, 2)        \
  X(SliceBackward, "slice_backward", 1, 1)                \
  X(ShardSlice, "shard_slice", 1, 1)                      \
  X(EmbeddingShard, "embedding_shard", 3, 3)

enum class OpKind {
#define MESHTEST_OP_ENUM(e, name, lo, hi) e,
  MESHTEST_OPS(MESHTEST_OP_ENUM)
#undef MESHTEST_OP_ENUM
};

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};
std::string type_to_string(const TensorType& type);  // "f32[1,3,224,224]"

std::string_view op_name(OpKind kind);
std::optional<OpKind> find_op(std::string_view name);
const std::vector<OpKind>& all_ops();
int op_min_inputs(OpKind kind);
int op_max_inputs(OpKind kind);  // -1: variadic
bool is_unary_elementwise(OpKind kind);
bool is_binary_elementwise(OpKind kind);

// Result type of an op, or CompileError describing what is wrong (the caller
// adds which op). Checks arity, dtypes, ranks, shapes and attributes.
TensorType infer_type(OpKind kind, const std::vector<TensorType>& inputs, const Attrs& attrs);

// numpy broadcasting of two shapes; throws CompileError when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// Normalizes a possibly negative axis for a tensor of `rank`; throws when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace meshtest
