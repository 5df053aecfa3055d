// Device kernels of the backward ops compiler/autodiff emits: convolution
// backward data / weights and max / avg pooling backward through oneDNN's
// backward primitives (bf16 operands, f32 accumulation inside oneDNN, weight
// gradients accumulated in f32 and rounded once), and greater,
// embedding_backward (scatter-add in f32) and slice_backward as loops.
// Primitives are built per call (no cache: backward ops run once per step).
#include <algorithm>
#include <dnnl.hpp>
#include <unordered_map>

#include "core/error.h"
#include "runtime/device/device_kernels.h"
#include "runtime/device/dnnl_common.h"

namespace meshtest::runtime::device_kernels {

namespace {

using dnnl::memory;
using Dims = memory::dims;
using Tag = memory::format_tag;
using DataType = memory::data_type;

Dims dims_of(const Shape& s) { return Dims(s.begin(), s.end()); }

memory user_memory(const Tensor& t, DataType type, Tag tag) {
  return memory(memory::desc(dims_of(t.shape()), type, tag), cpu_engine(), const_cast<void*>(t.raw_data()));
}

// `user` in the layout `want`: itself, or a reordered copy.
memory in_layout(const memory& user, const memory::desc& want, dnnl::stream& stream) {
  if (user.get_desc() == want) return user;
  memory m(want, cpu_engine());
  dnnl::reorder(user, m).execute(stream, const_cast<memory&>(user), m);
  return m;
}

// Runs `prim` with `args`; the argument `out_arg` is produced in `out_desc`
// and reordered into `out_user` when the layouts differ.
void run_primitive(const dnnl::primitive& prim, std::unordered_map<int, memory> args, int out_arg,
                   const memory::desc& out_desc, memory& out_user, dnnl::stream& stream) {
  memory out = out_user.get_desc() == out_desc ? out_user : memory(out_desc, cpu_engine());
  args.emplace(out_arg, out);
  prim.execute(stream, args);
  if (out.get_data_handle() != out_user.get_data_handle()) dnnl::reorder(out, out_user).execute(stream, out, out_user);
  stream.wait();
}

struct ConvDescs {
  memory::desc src, wei, dst;  // Tag::any
  Dims strides, dilation, padding;
  Tag wei_tag;
  Dims wei_dims;
};

ConvDescs conv_descs(const Shape& x, const Shape& w, const Shape& y, const Attrs& attrs, DataType wei_type) {
  const int64_t groups = attrs.get_int("groups", 1);
  ConvDescs d;
  d.wei_dims = groups == 1 ? dims_of(w) : Dims{groups, w[0] / groups, w[1], w[2], w[3]};
  d.wei_tag = groups == 1 ? Tag::oihw : Tag::goihw;
  d.src = memory::desc(dims_of(x), DataType::bf16, Tag::any);
  d.wei = memory::desc(d.wei_dims, wei_type, Tag::any);
  d.dst = memory::desc(dims_of(y), DataType::bf16, Tag::any);
  d.strides = spatial_pair(attrs, "stride", 1);
  d.dilation = spatial_pair(attrs, "dilation", 1, 1);  // oneDNN counts dilation from 0
  d.padding = spatial_pair(attrs, "padding", 0);
  return d;
}

dnnl::convolution_forward::primitive_desc conv_hint(const ConvDescs& d) {
  const memory::desc wei(d.wei_dims, DataType::bf16, Tag::any);
  return {dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, d.src,
                                          wei, d.dst, d.strides, d.dilation, d.padding, d.padding),
          cpu_engine()};
}

struct PoolSetup {
  dnnl::algorithm algorithm;
  Dims kernel, strides, padding;
  memory::desc src, dst;  // plain nchw bf16
  dnnl::pooling_v2_forward::primitive_desc forward;
};

PoolSetup pool_setup(OpKind forward_kind, const Shape& x, const Shape& y, const Attrs& attrs) {
  PoolSetup p;
  p.algorithm = forward_kind == OpKind::MaxPool2d            ? dnnl::algorithm::pooling_max
                : attrs.get_int("count_include_pad", 1) != 0 ? dnnl::algorithm::pooling_avg_include_padding
                                                             : dnnl::algorithm::pooling_avg_exclude_padding;
  p.kernel = spatial_pair(attrs, "kernel", 1);
  p.strides = spatial_pair(attrs, "stride", 1);
  p.padding = spatial_pair(attrs, "padding", 0);
  p.src = memory::desc(dims_of(x), DataType::bf16, Tag::nchw);
  p.dst = memory::desc(dims_of(y), DataType::bf16, Tag::nchw);
  p.forward = {dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_training, p.algorithm, p.src, p.dst, p.strides,
                                              p.kernel, Dims{0, 0}, p.padding, p.padding),
               cpu_engine()};
  return p;
}

dnnl::pooling_v2_backward::primitive_desc pool_backward(const PoolSetup& p) {
  return {
      dnnl::pooling_v2_backward::desc(p.algorithm, p.src, p.dst, p.strides, p.kernel, Dims{0, 0}, p.padding, p.padding),
      cpu_engine(), p.forward};
}

// Flat offset into a broadcast operand of the output element `flat`.
int64_t broadcast_offset(int64_t flat, const Shape& out, const Shape& in) {
  int64_t offset = 0, stride = 1;
  const size_t lead = out.size() - in.size();
  for (size_t d = out.size(); d-- > lead;) {
    const int64_t dim = in[d - lead];
    if (dim != 1) offset += (flat % out[d]) * stride;
    stride *= dim;
    flat /= out[d];
  }
  return offset;
}

template <class Id>
void scatter_add_rows(const Tensor& ids, const Tensor& dy, Tensor& out) {
  const int64_t rows = out.dim(0), d = out.dim(1), n = ids.numel();
  const Id* pi = ids.data<Id>();
  const uint16_t* py = dy.data<uint16_t>();
  std::vector<float> acc(static_cast<size_t>(rows * d), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    if (pi[i] < 0 || pi[i] >= rows) {
      throw RuntimeError("embedding_backward id " + std::to_string(pi[i]) + " out of range [0, " +
                         std::to_string(rows) + ")");
    }
    float* row = acc.data() + pi[i] * d;
    for (int64_t j = 0; j < d; ++j) row[j] += load_bf16(py[i * d + j]);
  }
  uint16_t* po = out.data<uint16_t>();
  for (size_t i = 0; i < acc.size(); ++i) po[i] = store_bf16(acc[i]);
}

}  // namespace

void greater(const Tensor& a, const Tensor& b, Tensor& out) {
  require_bf16(a, "greater lhs");
  require_bf16(b, "greater rhs");
  require_bf16(out, "greater result");
  const uint16_t* pa = a.data<uint16_t>();
  const uint16_t* pb = b.data<uint16_t>();
  uint16_t* po = out.data<uint16_t>();
  const Shape& shape = out.shape();
  const uint16_t one = store_bf16(1.0f), zero = store_bf16(0.0f);
  parallel_ranges(out.numel(), 1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float x = load_bf16(pa[broadcast_offset(i, shape, a.shape())]);
      const float y = load_bf16(pb[broadcast_offset(i, shape, b.shape())]);
      po[i] = x > y ? one : zero;
    }
  });
}

void conv2d_backward_input(const Tensor& dy, const Tensor& w, const Attrs& attrs, Tensor& out) {
  require_bf16(dy, "conv2d_backward_input dy");
  require_bf16(w, "conv2d_backward_input weight");
  require_bf16(out, "conv2d_backward_input result");
  if (out.numel() == 0 || dy.numel() == 0) return;
  const ConvDescs d = conv_descs(out.shape(), w.shape(), dy.shape(), attrs, DataType::bf16);
  const dnnl::convolution_backward_data::primitive_desc pd(
      dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, d.src, d.wei, d.dst, d.strides,
                                            d.dilation, d.padding, d.padding),
      cpu_engine(), conv_hint(d));
  dnnl::stream stream(cpu_engine());
  const memory wei_user(memory::desc(d.wei_dims, DataType::bf16, d.wei_tag), cpu_engine(), const_cast<void*>(w.raw_data()));
  memory out_user = user_memory(out, DataType::bf16, Tag::nchw);
  run_primitive(dnnl::convolution_backward_data(pd),
                {{DNNL_ARG_DIFF_DST, in_layout(user_memory(dy, DataType::bf16, Tag::nchw), pd.diff_dst_desc(), stream)},
                 {DNNL_ARG_WEIGHTS, in_layout(wei_user, pd.weights_desc(), stream)}},
                DNNL_ARG_DIFF_SRC, pd.diff_src_desc(), out_user, stream);
}

void conv2d_backward_weight(const Tensor& x, const Tensor& dy, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "conv2d_backward_weight input");
  require_bf16(dy, "conv2d_backward_weight dy");
  require_bf16(out, "conv2d_backward_weight result");
  if (out.numel() == 0) return;
  if (x.numel() == 0 || dy.numel() == 0) return;  // preallocated zeros
  const ConvDescs d = conv_descs(x.shape(), out.shape(), dy.shape(), attrs, DataType::f32);
  const dnnl::convolution_backward_weights::primitive_desc pd(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, d.src, d.wei, d.dst, d.strides,
                                               d.dilation, d.padding, d.padding),
      cpu_engine(), conv_hint(d));
  dnnl::stream stream(cpu_engine());
  std::vector<float> wide(static_cast<size_t>(out.numel()));
  memory wide_user(memory::desc(d.wei_dims, DataType::f32, d.wei_tag), cpu_engine(), wide.data());
  run_primitive(
      dnnl::convolution_backward_weights(pd),
      {{DNNL_ARG_SRC, in_layout(user_memory(x, DataType::bf16, Tag::nchw), pd.src_desc(), stream)},
       {DNNL_ARG_DIFF_DST, in_layout(user_memory(dy, DataType::bf16, Tag::nchw), pd.diff_dst_desc(), stream)}},
      DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc(), wide_user, stream);
  uint16_t* po = out.data<uint16_t>();
  for (size_t i = 0; i < wide.size(); ++i) po[i] = store_bf16(wide[i]);
}

void max_pool2d_backward(const Tensor& x, const Tensor& dy, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "max_pool2d_backward input");
  require_bf16(dy, "max_pool2d_backward dy");
  require_bf16(out, "max_pool2d_backward result");
  if (out.numel() == 0 || dy.numel() == 0) return;
  const PoolSetup p = pool_setup(OpKind::MaxPool2d, x.shape(), dy.shape(), attrs);
  const auto backward = pool_backward(p);
  dnnl::stream stream(cpu_engine());
  // The forward pass again, for the workspace recording each window's argmax.
  memory workspace(p.forward.workspace_desc(), cpu_engine());
  memory pooled(p.dst, cpu_engine());
  dnnl::pooling_v2_forward(p.forward).execute(stream, {{DNNL_ARG_SRC, user_memory(x, DataType::bf16, Tag::nchw)},
                                                       {DNNL_ARG_DST, pooled},
                                                       {DNNL_ARG_WORKSPACE, workspace}});
  memory out_user = user_memory(out, DataType::bf16, Tag::nchw);
  run_primitive(dnnl::pooling_v2_backward(backward),
                {{DNNL_ARG_DIFF_DST, user_memory(dy, DataType::bf16, Tag::nchw)}, {DNNL_ARG_WORKSPACE, workspace}},
                DNNL_ARG_DIFF_SRC, backward.diff_src_desc(), out_user, stream);
}

void avg_pool2d_backward(const Tensor& dy, const Attrs& attrs, Tensor& out) {
  require_bf16(dy, "avg_pool2d_backward dy");
  require_bf16(out, "avg_pool2d_backward result");
  if (out.numel() == 0 || dy.numel() == 0) return;
  const PoolSetup p = pool_setup(OpKind::AvgPool2d, out.shape(), dy.shape(), attrs);
  const auto backward = pool_backward(p);
  dnnl::stream stream(cpu_engine());
  memory out_user = user_memory(out, DataType::bf16, Tag::nchw);
  run_primitive(dnnl::pooling_v2_backward(backward), {{DNNL_ARG_DIFF_DST, user_memory(dy, DataType::bf16, Tag::nchw)}},
                DNNL_ARG_DIFF_SRC, backward.diff_src_desc(), out_user, stream);
}

void embedding_backward(const Tensor& ids, const Tensor& dy, Tensor& out) {
  require_bf16(dy, "embedding_backward dy");
  require_bf16(out, "embedding_backward result");
  switch (ids.dtype()) {
    case DType::I32:
      return scatter_add_rows<int32_t>(ids, dy, out);
    case DType::I64:
      return scatter_add_rows<int64_t>(ids, dy, out);
    default:
      break;
  }
  throw RuntimeError("embedding_backward ids must be i32 or i64");
}

void slice_backward(const Tensor& dy, const Attrs& attrs, Tensor& out) {
  const size_t bytes = dtype_size(dy.dtype());
  if (bytes == 0 || dy.dtype() != out.dtype()) throw RuntimeError("slice_backward needs matching element types");
  const auto rank = out.rank();
  const auto axis = static_cast<size_t>(normalize_axis(attrs.get_int("axis"), rank));
  const int64_t dim = out.shape()[axis];
  const int64_t raw_start = attrs.get_int("start", 0);
  const int64_t start = std::clamp<int64_t>(raw_start < 0 ? raw_start + dim : raw_start, 0, dim);
  const int64_t step = attrs.get_int("step", 1);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < out.shape().size(); ++d) inner *= out.shape()[d];
  const int64_t len = dy.shape()[axis];
  const int64_t outer = inner * len == 0 ? 0 : dy.numel() / (inner * len);
  const auto* src = static_cast<const char*>(dy.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  std::fill_n(dst, out.nbytes(), char{0});  // bf16 and integer zero are all-zero bits
  const auto row = static_cast<size_t>(inner) * bytes;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < len; ++k) {
      std::copy_n(src + static_cast<size_t>(o * len + k) * row, row,
                  dst + static_cast<size_t>(o * dim + start + k * step) * row);
    }
  }
}

}  // namespace meshtest::runtime::device_kernels
