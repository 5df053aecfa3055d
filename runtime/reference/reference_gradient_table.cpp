// The CPU reference's gradient of every op (the table its backward dispatches
// through), or the reason an op has none.
#include "runtime/reference/reference_backward.h"
#include "runtime/reference/reference_backward_kernels.h"

namespace meshtest::runtime {

namespace {

namespace grad = reference::grad;
using A = const GradientArgs&;

ReferenceGradient kernel(GradientKernel k) { return ReferenceGradient{k}; }

OpTable<ReferenceGradient> build() {
  using K = OpKind;
  OpTable<ReferenceGradient> t("reference gradient");
  t.set(unary_elementwise_ops(), kernel([](A a) -> grad::Grads {
    return {grad::unary_backward(a.op.kind, a.in[0], a.y, a.dy, a.op.attrs)};
  }));
  t.set(binary_elementwise_ops(),
        kernel([](A a) { return grad::binary_backward(a.op.kind, a.in[0], a.in[1], a.dy, a.want); }));
  // float -> float cast: the reference holds both in f32.
  t.set({K::Cast, K::Reshape}, kernel([](A a) -> grad::Grads { return {a.dy.reshaped(a.in[0].shape())}; }));
  t.set(K::Matmul, kernel([](A a) { return grad::matmul_backward(a.in[0], a.in[1], a.dy, a.want); }));
  t.set(K::Linear, kernel([](A a) { return grad::linear_backward(a.in[0], a.in[1], a.dy, a.want); }));
  t.set(K::Conv2d, kernel([](A a) { return grad::conv2d_backward(a.in[0], a.in[1], a.dy, a.op.attrs, a.want); }));
  t.set(K::MaxPool2d,
        kernel([](A a) -> grad::Grads { return {grad::max_pool2d_backward(a.in[0], a.dy, a.op.attrs)}; }));
  t.set(K::AvgPool2d,
        kernel([](A a) -> grad::Grads { return {grad::avg_pool2d_backward(a.in[0], a.dy, a.op.attrs)}; }));
  t.set(K::GlobalAvgPool2d,
        kernel([](A a) -> grad::Grads { return {grad::global_avg_pool2d_backward(a.in[0], a.dy)}; }));
  t.set(K::BatchNorm, kernel([](A a) { return grad::batch_norm_backward(a.in, a.dy, a.op.attrs, a.want); }));
  t.set(K::LayerNorm, kernel([](A a) { return grad::layer_norm_backward(a.in, a.dy, a.op.attrs, a.want); }));
  t.set(K::Softmax, kernel([](A a) -> grad::Grads { return {grad::softmax_backward(a.y, a.dy, a.op.attrs)}; }));
  t.set(K::Embedding, kernel([](A a) -> grad::Grads {
    return {Tensor(), grad::embedding_backward(a.in[0], a.in[1].shape(), a.dy)};
  }));
  t.set(K::Transpose, kernel([](A a) -> grad::Grads { return {grad::transpose_backward(a.dy, a.op.attrs)}; }));
  t.set(K::Concat, kernel([](A a) { return grad::concat_backward(a.in, a.dy, a.op.attrs, a.want); }));
  t.set(K::Slice,
        kernel([](A a) -> grad::Grads { return {grad::slice_backward(a.in[0].shape(), a.dy, a.op.attrs)}; }));
  t.set({K::ReduceSum, K::ReduceMean, K::ReduceMax}, kernel([](A a) -> grad::Grads {
    return {grad::reduce_backward(a.op.kind, a.in[0], a.y, a.dy, a.op.attrs)};
  }));
  t.set({K::Constant, K::TopkMask, K::Greater}, ReferenceGradient{nullptr});  // no gradient flows through
  t.none({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice, K::EmbeddingShard},
         "collectives and shard-local ops run only on a mesh; the reference runs the unsharded graph");
  t.none({K::RmsNorm, K::Sdpa}, "composites are made by the compiler's fuse pass; the reference runs the unfused graph");
  t.none({K::Conv2dBackwardInput, K::Conv2dBackwardWeight, K::MaxPool2dBackward, K::AvgPool2dBackward,
          K::EmbeddingBackward, K::SliceBackward},
         "backward ops are made by the compiler's autodiff; the reference differentiates the forward graph itself");
  // The ops StableHLO brought.
  t.none(stablehlo_primitive_ops(), "StableHLO primitive: no gradient rule yet");
  return t;
}

}  // namespace

const OpTable<ReferenceGradient>& reference_gradients() {
  static const OpTable<ReferenceGradient> table = build();
  return table;
}

}  // namespace meshtest::runtime
