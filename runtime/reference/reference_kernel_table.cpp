// The CPU reference's forward kernel of every op (the table the executor
// dispatches through), or the reason an op has none.
#include "core/error.h"
#include "runtime/reference/reference_executor.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime {

namespace {

namespace ref = reference;

const Tensor* third(const std::vector<Tensor>& in) { return in.size() > 2 ? &in[2] : nullptr; }

OpTable<ReferenceKernel> build() {
  using K = OpKind;
  using In = const std::vector<Tensor>&;
  OpTable<ReferenceKernel> t("reference kernel");
  t.set(unary_elementwise_ops(), [](const Op& op, In in) { return ref::unary(op.kind, in[0], op.attrs); });
  t.set(binary_elementwise_ops(), [](const Op& op, In in) { return ref::binary(op.kind, in[0], in[1], op.attrs); });
  t.set(K::Cast, [](const Op& op, In in) { return ref::cast(in[0], parse_dtype(op.attrs.get_string("dtype"))); });
  t.set(K::Constant, [](const Op& op, In) { return ref::constant(op.attrs); });
  t.set(K::Matmul, [](const Op&, In in) { return ref::matmul(in[0], in[1]); });
  t.set(K::Linear, [](const Op&, In in) { return ref::linear(in[0], in[1], third(in)); });
  t.set(K::Conv2d, [](const Op& op, In in) { return ref::conv2d(in[0], in[1], third(in), op.attrs); });
  t.set(K::MaxPool2d, [](const Op& op, In in) { return ref::max_pool2d(in[0], op.attrs); });
  t.set(K::AvgPool2d, [](const Op& op, In in) { return ref::avg_pool2d(in[0], op.attrs); });
  t.set(K::GlobalAvgPool2d, [](const Op&, In in) { return ref::global_avg_pool2d(in[0]); });
  t.set(K::BatchNorm, [](const Op& op, In in) { return ref::batch_norm(in[0], in[1], in[2], in[3], in[4], op.attrs); });
  t.set(K::LayerNorm, [](const Op& op, In in) { return ref::layer_norm(in[0], in[1], in[2], op.attrs); });
  t.set(K::Softmax, [](const Op& op, In in) { return ref::softmax(in[0], op.attrs); });
  t.set(K::Embedding, [](const Op&, In in) { return ref::embedding(in[0], in[1]); });
  t.set(K::Reshape, [](const Op& op, In in) { return ref::reshape(in[0], op.attrs); });
  t.set(K::Transpose, [](const Op& op, In in) { return ref::transpose(in[0], op.attrs); });
  t.set(K::Concat, [](const Op& op, In in) { return ref::concat(in, op.attrs); });
  t.set(K::Slice, [](const Op& op, In in) { return ref::slice(in[0], op.attrs); });
  t.set({K::ReduceSum, K::ReduceMean, K::ReduceMax}, [](const Op& op, In in) { return ref::reduce(op.kind, in[0], op.attrs); });
  t.set(K::TopkMask, [](const Op& op, In in) { return ref::topk_mask(in[0], op.attrs); });
  t.set(K::Greater, [](const Op&, In in) { return ref::greater(in[0], in[1]); });
  t.set(K::Conv2dBackwardInput, [](const Op& op, In in) { return ref::conv2d_backward_input(in[0], in[1], op.attrs); });
  t.set(K::Conv2dBackwardWeight, [](const Op& op, In in) { return ref::conv2d_backward_weight(in[0], in[1], op.attrs); });
  t.set(K::MaxPool2dBackward, [](const Op& op, In in) { return ref::max_pool2d_backward(in[0], in[1], op.attrs); });
  t.set(K::AvgPool2dBackward, [](const Op& op, In in) { return ref::avg_pool2d_backward(in[0], op.attrs); });
  t.set(K::EmbeddingBackward, [](const Op& op, In in) { return ref::embedding_backward(in[0], in[1], op.attrs); });
  t.set(K::SliceBackward, [](const Op& op, In in) { return ref::slice_backward(in[0], op.attrs); });
  // StableHLO elementwise ops (53..95).
  t.set(stablehlo_unary_ops(),
        [](const Op& op, In in) { return ref::stablehlo_unary(op.kind, in[0]); });
  t.set(stablehlo_binary_ops(),
        [](const Op& op, In in) { return ref::stablehlo_binary(op.kind, in[0], in[1]); });
  t.set(K::Compare, [](const Op& op, In in) { return ref::compare(in[0], in[1], op.attrs); });
  t.set(K::Select, [](const Op&, In in) { return ref::select(in[0], in[1], in[2]); });
  t.set(K::Clamp, [](const Op&, In in) { return ref::clamp(in[0], in[1], in[2]); });
  t.set(K::BitcastConvert, [](const Op& op, In in) { return ref::bitcast_convert(in[0], op.attrs); });
  t.set(K::ReducePrecision, [](const Op& op, In in) { return ref::reduce_precision(in[0], op.attrs); });
  t.set(K::Iota, [](const Op& op, In) { return ref::iota(op.attrs); });
  t.none({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice, K::EmbeddingShard},
         "collectives and shard-local ops run only on a mesh; the reference runs the unsharded graph");
  t.none({K::RmsNorm, K::Sdpa}, "composites are made by the compiler's fuse pass; the reference runs the unfused graph");
  // ---- StableHLO structural ops 96..110 (reference_structural.h) ----
  t.set(K::BroadcastInDim, [](const Op& op, In in) { return ref::broadcast_in_dim(in[0], op.attrs); });
  t.set(K::Pad, [](const Op& op, In in) { return ref::pad(in[0], in[1], op.attrs); });
  t.set(K::Reverse, [](const Op& op, In in) { return ref::reverse(in[0], op.attrs); });
  t.set(K::DynamicSlice, [](const Op& op, In in) { return ref::dynamic_slice(in, op.attrs); });
  t.set(K::DynamicUpdateSlice, [](const Op&, In in) { return ref::dynamic_update_slice(in); });
  t.set(K::Gather, [](const Op& op, In in) { return ref::gather(in[0], in[1], op.attrs); });
  t.set(K::Scatter, [](const Op& op, In in) { return ref::scatter(in[0], in[1], in[2], op.attrs); });
  t.set(K::DotGeneral, [](const Op& op, In in) { return ref::dot_general(in[0], in[1], op.attrs); });
  t.set(K::Convolution, [](const Op& op, In in) { return ref::convolution(in[0], in[1], op.attrs); });
  t.set(K::Reduce, [](const Op& op, In in) { return ref::reduce_with(in[0], in[1], op.attrs); });
  t.set(K::ReduceArg, [](const Op& op, In in) { return ref::reduce_arg(in[0], op.attrs); });
  t.set(K::ReduceWindow, [](const Op& op, In in) { return ref::reduce_window(in[0], in[1], op.attrs); });
  t.set(K::SelectAndScatter,
        [](const Op& op, In in) { return ref::select_and_scatter(in[0], in[1], in[2], op.attrs); });
  t.set(K::SortPermutation, [](const Op& op, In in) { return ref::sort_permutation(in, op.attrs); });
  t.set(K::TakeAlongAxis, [](const Op& op, In in) { return ref::take_along_axis(in[0], in[1], op.attrs); });
  // ---- end of StableHLO structural ops ----
  return t;
}

}  // namespace

const OpTable<ReferenceKernel>& reference_kernels() {
  static const OpTable<ReferenceKernel> table = build();
  return table;
}

}  // namespace meshtest::runtime
