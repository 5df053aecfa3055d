// The simulated chip's kernel of every op (the table it dispatches each
// instruction through), or the reason an op has none.
#include "runtime/device/device_kernels.h"
#include "runtime/device/device_kernels_structural.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::runtime {

namespace {

namespace k = device_kernels;
using I = const DeviceInstr&;
using In = const std::vector<const Tensor*>&;

const Tensor* third(In in) { return in.size() > 2 ? in[2] : nullptr; }

OpTable<DeviceKernel> build() {
  using K = OpKind;
  OpTable<DeviceKernel> t("device kernel");
  t.set(unary_elementwise_ops(), [](I i, In in, Tensor& out) { k::unary(i.kind, i.attrs, *in[0], out); });
  t.set(binary_elementwise_ops(), [](I i, In in, Tensor& out) { k::binary(i.kind, i.attrs, *in[0], *in[1], out); });
  t.set(K::Cast, [](I, In in, Tensor& out) { k::cast(*in[0], out); });
  t.set(K::Constant, [](I i, In, Tensor& out) { k::constant(i.attrs, out); });
  t.set(K::Matmul, [](I, In in, Tensor& out) { k::matmul(*in[0], *in[1], out); });
  t.set(K::Linear, [](I, In in, Tensor& out) { k::linear(*in[0], *in[1], third(in), out); });
  t.set(K::Conv2d, [](I i, In in, Tensor& out) { k::conv2d(*in[0], *in[1], third(in), i.attrs, out); });
  t.set({K::MaxPool2d, K::AvgPool2d, K::GlobalAvgPool2d},
        [](I i, In in, Tensor& out) { k::pool2d(i.kind, i.attrs, *in[0], out); });
  t.set(K::BatchNorm,
        [](I i, In in, Tensor& out) { k::batch_norm(*in[0], *in[1], *in[2], *in[3], *in[4], i.attrs, out); });
  t.set(K::LayerNorm, [](I i, In in, Tensor& out) { k::layer_norm(*in[0], *in[1], *in[2], i.attrs, out); });
  t.set(K::Softmax, [](I i, In in, Tensor& out) { k::softmax(*in[0], i.attrs, out); });
  t.set(K::Embedding, [](I, In in, Tensor& out) { k::embedding(*in[0], *in[1], out); });
  t.set(K::EmbeddingShard, [](I, In in, Tensor& out) { k::embedding_shard(*in[0], *in[1], *in[2], out); });
  t.set(K::Reshape, [](I, In in, Tensor& out) { k::copy_reshape(*in[0], out); });
  t.set(K::Transpose, [](I i, In in, Tensor& out) { k::transpose(*in[0], i.attrs, out); });
  t.set(K::Concat, [](I i, In in, Tensor& out) { k::concat(in, i.attrs, out); });
  t.set(K::Slice, [](I i, In in, Tensor& out) { k::slice(*in[0], i.attrs, out); });
  t.set({K::ReduceSum, K::ReduceMean, K::ReduceMax},
        [](I i, In in, Tensor& out) { k::reduce(i.kind, *in[0], i.attrs, out); });
  t.set(K::RmsNorm, [](I i, In in, Tensor& out) { k::rms_norm(*in[0], *in[1], i.attrs, out); });
  t.set(K::Sdpa, [](I i, In in, Tensor& out) { k::sdpa(in, i.attrs, out); });
  t.set(K::TopkMask, [](I i, In in, Tensor& out) { k::topk_mask(*in[0], i.attrs, out); });
  t.set(K::Greater, [](I, In in, Tensor& out) { k::greater(*in[0], *in[1], out); });
  t.set(K::Conv2dBackwardInput,
        [](I i, In in, Tensor& out) { k::conv2d_backward_input(*in[0], *in[1], i.attrs, out); });
  t.set(K::Conv2dBackwardWeight,
        [](I i, In in, Tensor& out) { k::conv2d_backward_weight(*in[0], *in[1], i.attrs, out); });
  t.set(K::MaxPool2dBackward, [](I i, In in, Tensor& out) { k::max_pool2d_backward(*in[0], *in[1], i.attrs, out); });
  t.set(K::AvgPool2dBackward, [](I i, In in, Tensor& out) { k::avg_pool2d_backward(*in[0], i.attrs, out); });
  t.set(K::EmbeddingBackward, [](I, In in, Tensor& out) { k::embedding_backward(*in[0], *in[1], out); });
  t.set(K::SliceBackward, [](I i, In in, Tensor& out) { k::slice_backward(*in[0], i.attrs, out); });
  // StableHLO elementwise ops (53..95).
  t.set(stablehlo_unary_ops(),
        [](I i, In in, Tensor& out) { k::stablehlo_unary(i.kind, *in[0], out); });
  t.set(stablehlo_binary_ops(),
        [](I i, In in, Tensor& out) { k::stablehlo_binary(i.kind, *in[0], *in[1], out); });
  t.set(K::Compare, [](I i, In in, Tensor& out) { k::compare(*in[0], *in[1], i.attrs, out); });
  t.set(K::Select, [](I, In in, Tensor& out) { k::select(*in[0], *in[1], *in[2], out); });
  t.set(K::Clamp, [](I, In in, Tensor& out) { k::clamp(*in[0], *in[1], *in[2], out); });
  t.set(K::BitcastConvert, [](I i, In in, Tensor& out) { k::bitcast_convert(*in[0], i.attrs, out); });
  t.set(K::ReducePrecision, [](I i, In in, Tensor& out) { k::reduce_precision(*in[0], i.attrs, out); });
  t.set(K::Iota, [](I i, In, Tensor& out) { k::iota(i.attrs, out); });
  // ---- StableHLO structural ops 96..110 (device_kernels_structural.h) ----
  t.set(K::BroadcastInDim, [](I i, In in, Tensor& out) { k::broadcast_in_dim(*in[0], i.attrs, out); });
  t.set(K::Pad, [](I i, In in, Tensor& out) { k::pad(*in[0], *in[1], i.attrs, out); });
  t.set(K::Reverse, [](I i, In in, Tensor& out) { k::reverse(*in[0], i.attrs, out); });
  t.set(K::DynamicSlice, [](I, In in, Tensor& out) { k::dynamic_slice(in, out); });
  t.set(K::DynamicUpdateSlice, [](I, In in, Tensor& out) { k::dynamic_update_slice(in, out); });
  t.set(K::Gather, [](I i, In in, Tensor& out) { k::gather(*in[0], *in[1], i.attrs, out); });
  t.set(K::Scatter, [](I i, In in, Tensor& out) { k::scatter(*in[0], *in[1], *in[2], i.attrs, out); });
  t.set(K::DotGeneral, [](I i, In in, Tensor& out) { k::dot_general(*in[0], *in[1], i.attrs, out); });
  t.set(K::Convolution, [](I i, In in, Tensor& out) { k::convolution(*in[0], *in[1], i.attrs, out); });
  t.set(K::Reduce, [](I i, In in, Tensor& out) { k::reduce_combine(*in[0], *in[1], i.attrs, out); });
  t.set(K::ReduceArg, [](I i, In in, Tensor& out) { k::reduce_arg(*in[0], i.attrs, out); });
  t.set(K::ReduceWindow, [](I i, In in, Tensor& out) { k::reduce_window(*in[0], *in[1], i.attrs, out); });
  t.set(K::SelectAndScatter,
        [](I i, In in, Tensor& out) { k::select_and_scatter(*in[0], *in[1], *in[2], i.attrs, out); });
  t.set(K::SortPermutation, [](I i, In in, Tensor& out) { k::sort_permutation(in, i.attrs, out); });
  t.set(K::TakeAlongAxis, [](I i, In in, Tensor& out) { k::take_along_axis(*in[0], *in[1], i.attrs, out); });
  // ---- end of StableHLO structural ops ----
  t.none({K::AllGather, K::ReduceScatter, K::AllReduce, K::AllToAll, K::ShardSlice},
         "collectives are performed by the mesh runtime between steps (runtime/mesh/collectives.cpp)");
  return t;
}

}  // namespace

const OpTable<DeviceKernel>& device_kernel_table() {
  static const OpTable<DeviceKernel> table = build();
  return table;
}

// The kernels of most of a model's ops (GEMMs, convolutions, elementwise,
// normalizations, data movement): their results' zeroing was a pass over every result for
// nothing. Each is checked against a poisoned result buffer
// (tests/runtime_device/simulated_chip_test.cpp).
bool writes_every_element(OpKind kind) {
  using K = OpKind;
  if (is_unary_elementwise(kind) || is_binary_elementwise(kind)) return true;
  switch (kind) {
    case K::Matmul:
    case K::Linear:
    case K::Conv2d:
    case K::MaxPool2d:
    case K::AvgPool2d:
    case K::GlobalAvgPool2d:
    case K::BatchNorm:
    case K::LayerNorm:
    case K::Softmax:
    case K::Reshape:
    case K::Transpose:
    case K::Concat:
    case K::Slice:
      return true;
    default:
      return false;
  }
}

}  // namespace meshtest::runtime
