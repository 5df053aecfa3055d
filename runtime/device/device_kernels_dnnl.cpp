// Device GEMM, convolution and pooling through oneDNN: bf16 sources and
// weights, f32 bias, f32 accumulation inside oneDNN, bf16 results. Primitives
// are cached process-wide by op shape (thread-safe), so repeated shapes in a
// program, or across executions, pay primitive creation once. Every primitive
// gets its scratchpad per call (scratchpad_mode::user): the library's shared
// scratchpad is not safe when the chips of a mesh run kernels concurrently.
#include <algorithm>
#include <cstring>
#include <dnnl.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
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


// Shape-keyed cache of immutable entries; creation happens outside the lock.
template <class Entry>
class PrimitiveCache {
 public:
  template <class Make>
  std::shared_ptr<const Entry> get(const std::string& key, const Make& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end()) return it->second;
    }
    auto entry = std::make_shared<const Entry>(make());
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    return entries_.emplace(key, std::move(entry)).first->second;
  }

 private:
  static constexpr size_t kMaxEntries = 4096;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> entries_;
};

std::string dims_key(const Dims& dims) {
  std::string key;
  for (auto d : dims) key += std::to_string(d) + ",";
  return key;
}

void* mutable_ptr(const Tensor& t) { return const_cast<void*>(t.raw_data()); }

// Attributes of every primitive here: a caller-owned scratchpad.
dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Host memory for one op's oneDNN temporaries (reordered operands, a blocked
// result, scratchpads) taken from the tensors' allocator, so large ones are
// recycled through the buffer pool (core/buffer_pool.h) instead of each op
// of each execution faulting in fresh pages; held until the op is done.
class TempMemory {
 public:
  memory make(const memory::desc& desc) {
    const size_t bytes = desc.get_size();
    if (bytes == 0) return memory(desc, cpu_engine());
    held_.push_back(Tensor::uninitialized(DType::U8, {static_cast<int64_t>(bytes)}));
    return memory(desc, cpu_engine(), held_.back().raw_data());
  }

 private:
  std::vector<Tensor> held_;
};

// Executes `prim` with a scratchpad of its own (see above).
template <class Pd>
void execute_with_scratchpad(const dnnl::primitive& prim, const Pd& pd, dnnl::stream& stream,
                             std::unordered_map<int, memory> args, TempMemory& temp) {
  args.emplace(DNNL_ARG_SCRATCHPAD, temp.make(pd.scratchpad_desc()));
  prim.execute(stream, args);
}

std::vector<float> bias_as_f32(const Tensor* bias) {
  if (bias == nullptr) return {};
  require_bf16(*bias, "bias");
  const uint16_t* p = bias->data<uint16_t>();
  std::vector<float> v(static_cast<size_t>(bias->numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_bf16(p[i]);
  return v;
}

// ---- matmul ----

struct MatmulEntry {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

// [batch x] M x K times K x N (weights stored K-major when `weights_nk`, i.e.
// PyTorch's [N, K] linear layout) with an optional f32 bias of N.
std::shared_ptr<const MatmulEntry> matmul_entry(int64_t batch, int64_t m, int64_t k, int64_t n, bool weights_nk,
                                                bool has_bias) {
  static PrimitiveCache<MatmulEntry> cache;
  const std::string key = "mm:" + dims_key({batch, m, k, n}) + (weights_nk ? "nk" : "kn") + (has_bias ? "b" : "");
  return cache.get(key, [&] {
    const bool batched = batch > 1;
    const memory::desc src(batched ? Dims{batch, m, k} : Dims{m, k}, DataType::bf16, batched ? Tag::abc : Tag::ab);
    const memory::desc wei(batched ? Dims{batch, k, n} : Dims{k, n}, DataType::bf16,
                           batched ? (weights_nk ? Tag::acb : Tag::abc) : (weights_nk ? Tag::ba : Tag::ab));
    const memory::desc dst(batched ? Dims{batch, m, n} : Dims{m, n}, DataType::bf16, batched ? Tag::abc : Tag::ab);
    const memory::desc bias =
        has_bias ? memory::desc(batched ? Dims{1, 1, n} : Dims{1, n}, DataType::f32, batched ? Tag::abc : Tag::ab)
                 : memory::desc();
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei, bias, dst), user_scratchpad(), cpu_engine());
    return MatmulEntry{pd, dnnl::matmul(pd)};
  });
}

void run_matmul(const MatmulEntry& e, const void* a, const void* b, const float* bias, void* out) {
  dnnl::engine& eng = cpu_engine();
  dnnl::stream stream(eng);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(e.pd.src_desc(), eng, const_cast<void*>(a))},
                                       {DNNL_ARG_WEIGHTS, memory(e.pd.weights_desc(), eng, const_cast<void*>(b))},
                                       {DNNL_ARG_DST, memory(e.pd.dst_desc(), eng, out)}};
  if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, memory(e.pd.bias_desc(), eng, const_cast<float*>(bias)));
  TempMemory temp;
  execute_with_scratchpad(e.prim, e.pd, stream, std::move(args), temp);
  stream.wait();
}

// ---- convolution ----

struct ConvEntry {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  memory::desc src_plain, wei_plain, dst_plain, bias_md;
  std::optional<dnnl::reorder> src_reorder, wei_reorder, dst_reorder;
};

std::optional<dnnl::reorder> make_reorder(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to, user_scratchpad()));
}

void run_reorder(const dnnl::reorder& reorder, const memory& from, const memory& to, dnnl::stream& stream,
                 TempMemory& temp) {
  const dnnl_memory_desc_t* scratch = dnnl_primitive_desc_query_md(reorder.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  std::unordered_map<int, memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  args.emplace(DNNL_ARG_SCRATCHPAD, temp.make(memory::desc(*scratch)));
  reorder.execute(stream, args);
}

// `from` (user memory) reordered into a temporary of `to_desc` when needed.
memory prepare_input(const std::optional<dnnl::reorder>& reorder, memory from, const memory::desc& to_desc,
                     dnnl::stream& stream, TempMemory& temp) {
  if (!reorder) return from;
  memory to = temp.make(to_desc);
  run_reorder(*reorder, from, to, stream, temp);
  return to;
}


// ---- pooling ----

struct PoolEntry {
  dnnl::pooling_v2_forward::primitive_desc pd;
  dnnl::pooling_v2_forward prim;
};

}  // namespace

void matmul(const Tensor& a, const Tensor& b, Tensor& out) {
  require_bf16(a, "matmul lhs");
  require_bf16(b, "matmul rhs");
  require_bf16(out, "matmul result");
  const int64_t m = a.dim(-2);
  const int64_t k = a.dim(-1);
  const int64_t n = b.dim(-1);
  const size_t batch_rank = static_cast<size_t>(out.rank() - 2);
  auto padded_batch = [&](const Tensor& t) {
    Shape s(batch_rank, 1);
    const size_t own = static_cast<size_t>(t.rank() - 2);
    for (size_t i = 0; i < own; ++i) s[batch_rank - own + i] = t.shape()[i];
    return s;
  };
  const Shape batch_a = padded_batch(a);
  const Shape batch_b = padded_batch(b);
  const Shape batch_out(out.shape().begin(), out.shape().end() - 2);
  const int64_t batch = shape_numel(batch_out);
  if (m == 0 || n == 0 || batch == 0) return;
  if (k == 0) {  // empty contraction: zeros (written here: the chip's result buffer is not zeroed)
    std::memset(out.raw_data(), 0, out.nbytes());
    return;
  }
  if (shape_numel(batch_b) == 1) {                       // b shared by every batch: fold the batch into M
    const auto e = matmul_entry(1, batch * m, k, n, false, false);
    run_matmul(*e, a.raw_data(), b.raw_data(), nullptr, out.raw_data());
    return;
  }
  if (batch_a == batch_b) {
    const auto e = matmul_entry(batch, m, k, n, false, false);
    run_matmul(*e, a.raw_data(), b.raw_data(), nullptr, out.raw_data());
    return;
  }
  // General broadcast: one 2-D product per output batch index.
  const auto e = matmul_entry(1, m, k, n, false, false);
  const std::vector<int64_t> out_strides = shape_strides(batch_out);
  const std::vector<int64_t> a_strides = shape_strides(batch_a);
  const std::vector<int64_t> b_strides = shape_strides(batch_b);
  const auto* pa = a.data<uint16_t>();
  const auto* pb = b.data<uint16_t>();
  auto* po = out.data<uint16_t>();
  for (int64_t i = 0; i < batch; ++i) {
    int64_t ia = 0;
    int64_t ib = 0;
    for (size_t d = 0; d < batch_rank; ++d) {
      const int64_t idx = (i / out_strides[d]) % batch_out[d];
      if (batch_a[d] != 1) ia += idx * a_strides[d];
      if (batch_b[d] != 1) ib += idx * b_strides[d];
    }
    run_matmul(*e, pa + ia * m * k, pb + ib * k * n, nullptr, po + i * m * n);
  }
}

void linear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out) {
  require_bf16(x, "linear input");
  require_bf16(w, "linear weight");
  require_bf16(out, "linear result");
  const int64_t k = x.dim(-1);
  const int64_t n = w.dim(0);
  if (out.numel() == 0) return;
  if (k == 0) {  // empty contraction: the result is the bias (or zeros)
    if (bias == nullptr) {
      std::memset(out.raw_data(), 0, out.nbytes());
      return;
    }
    const uint16_t* pb = bias->data<uint16_t>();
    uint16_t* po = out.data<uint16_t>();
    for (int64_t i = 0; i < out.numel(); ++i) po[i] = pb[i % n];
    return;
  }
  const int64_t m = x.numel() / k;
  const std::vector<float> b = bias_as_f32(bias);
  const auto e = matmul_entry(1, m, k, n, true, bias != nullptr);
  run_matmul(*e, x.raw_data(), w.raw_data(), bias ? b.data() : nullptr, out.raw_data());
}

void conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "conv2d input");
  require_bf16(w, "conv2d weight");
  require_bf16(out, "conv2d result");
  const int64_t groups = attrs.get_int("groups", 1);
  const Dims src_dims{x.dim(0), x.dim(1), x.dim(2), x.dim(3)};
  const Dims dst_dims{out.dim(0), out.dim(1), out.dim(2), out.dim(3)};
  const Dims wei_dims = groups == 1 ? Dims{w.dim(0), w.dim(1), w.dim(2), w.dim(3)}
                                    : Dims{groups, w.dim(0) / groups, w.dim(1), w.dim(2), w.dim(3)};
  const Dims strides = spatial_pair(attrs, "stride", 1);
  const Dims padding = spatial_pair(attrs, "padding", 0);
  const Dims dilation = spatial_pair(attrs, "dilation", 1, 1);  // oneDNN counts dilation from 0
  if (out.numel() == 0) return;
  // A pointwise conv (1x1, stride 1, no padding, one group, no bias) in NCHW is
  // a matmul per image, W[Cout, Cin] x X[Cin, H*W]: run as one, with no
  // reorder of the activations or the weights into a convolution's layout.
  if (groups == 1 && bias == nullptr && w.dim(2) == 1 && w.dim(3) == 1 && strides == Dims{1, 1} &&
      padding == Dims{0, 0} && x.dim(2) == out.dim(2) && x.dim(3) == out.dim(3)) {
    const int64_t channels = x.dim(1), out_channels = w.dim(0), plane = x.dim(2) * x.dim(3);
    const auto e = matmul_entry(1, out_channels, channels, plane, false, false);
    const auto* px = x.data<uint16_t>();
    auto* po = out.data<uint16_t>();
    for (int64_t n = 0; n < x.dim(0); ++n) {
      run_matmul(*e, w.raw_data(), px + n * channels * plane, nullptr, po + n * out_channels * plane);
    }
    return;
  }

  static PrimitiveCache<ConvEntry> cache;
  const std::string key = "conv:" + dims_key(src_dims) + dims_key(wei_dims) + dims_key(dst_dims) + dims_key(strides) +
                          dims_key(padding) + dims_key(dilation) + (bias ? "b" : "");
  const auto e = cache.get(key, [&] {
    const memory::desc src_any(src_dims, DataType::bf16, Tag::any);
    const memory::desc wei_any(wei_dims, DataType::bf16, Tag::any);
    const memory::desc dst_any(dst_dims, DataType::bf16, Tag::any);
    const memory::desc bias_md = bias ? memory::desc({dst_dims[1]}, DataType::f32, Tag::a) : memory::desc();
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                               src_any, wei_any, bias_md, dst_any, strides, dilation, padding, padding);
    dnnl::convolution_forward::primitive_desc pd(desc, user_scratchpad(), cpu_engine());
    ConvEntry entry{pd,
                    dnnl::convolution_forward(pd),
                    memory::desc(src_dims, DataType::bf16, Tag::nchw),
                    memory::desc(wei_dims, DataType::bf16, groups == 1 ? Tag::oihw : Tag::goihw),
                    memory::desc(dst_dims, DataType::bf16, Tag::nchw),
                    bias_md,
                    std::nullopt,
                    std::nullopt,
                    std::nullopt};
    entry.src_reorder = make_reorder(entry.src_plain, pd.src_desc());
    entry.wei_reorder = make_reorder(entry.wei_plain, pd.weights_desc());
    entry.dst_reorder = make_reorder(pd.dst_desc(), entry.dst_plain);
    return entry;
  });

  dnnl::engine& eng = cpu_engine();
  dnnl::stream stream(eng);
  TempMemory temp;
  const memory src =
      prepare_input(e->src_reorder, memory(e->src_plain, eng, mutable_ptr(x)), e->pd.src_desc(), stream, temp);
  const memory wei =
      prepare_input(e->wei_reorder, memory(e->wei_plain, eng, mutable_ptr(w)), e->pd.weights_desc(), stream, temp);
  memory dst_plain(e->dst_plain, eng, out.raw_data());
  memory dst = e->dst_reorder ? temp.make(e->pd.dst_desc()) : dst_plain;
  std::vector<float> b = bias_as_f32(bias);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(e->bias_md, eng, b.data()));
  execute_with_scratchpad(e->prim, e->pd, stream, std::move(args), temp);
  if (e->dst_reorder) run_reorder(*e->dst_reorder, dst, dst_plain, stream, temp);
  stream.wait();
}

void pool2d(OpKind kind, const Attrs& attrs, const Tensor& x, Tensor& out) {
  require_bf16(x, "pool input");
  require_bf16(out, "pool result");
  const Dims src_dims{x.dim(0), x.dim(1), x.dim(2), x.dim(3)};
  const Dims dst_dims{out.dim(0), out.dim(1), out.dim(2), out.dim(3)};
  Dims kernel{x.dim(2), x.dim(3)};
  Dims strides{1, 1};
  Dims padding{0, 0};
  dnnl::algorithm algorithm = dnnl::algorithm::pooling_avg_exclude_padding;
  if (kind != OpKind::GlobalAvgPool2d) {
    kernel = spatial_pair(attrs, "kernel", 1);
    strides = spatial_pair(attrs, "stride", 1);
    padding = spatial_pair(attrs, "padding", 0);
    if (kind == OpKind::MaxPool2d)
      algorithm = dnnl::algorithm::pooling_max;
    else if (attrs.get_int("count_include_pad", 1) != 0)
      algorithm = dnnl::algorithm::pooling_avg_include_padding;
  }
  if (out.numel() == 0) return;
  static PrimitiveCache<PoolEntry> cache;
  const std::string key = "pool:" + std::to_string(static_cast<int>(algorithm)) + ":" + dims_key(src_dims) +
                          dims_key(dst_dims) + dims_key(kernel) + dims_key(strides) + dims_key(padding);
  const auto e = cache.get(key, [&] {
    const memory::desc src(src_dims, DataType::bf16, Tag::nchw);
    const memory::desc dst(dst_dims, DataType::bf16, Tag::nchw);
    const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, src, dst, strides, kernel,
                                              Dims{0, 0}, padding, padding);
    dnnl::pooling_v2_forward::primitive_desc pd(desc, user_scratchpad(), cpu_engine());
    return PoolEntry{pd, dnnl::pooling_v2_forward(pd)};
  });
  dnnl::engine& eng = cpu_engine();
  dnnl::stream stream(eng);
  TempMemory temp;
  execute_with_scratchpad(e->prim, e->pd, stream,
                          {{DNNL_ARG_SRC, memory(e->pd.src_desc(), eng, mutable_ptr(x))},
                           {DNNL_ARG_DST, memory(e->pd.dst_desc(), eng, out.raw_data())}},
                          temp);
  stream.wait();
}

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory::dims spatial_pair(const Attrs& attrs, const char* name, int64_t fallback, int64_t minus) {
  const auto v = attrs.get_ints(name, {fallback, fallback});
  if (v.size() != 2) throw RuntimeError(std::string("attribute '") + name + "' must have 2 values");
  return {v[0] - minus, v[1] - minus};
}

}  // namespace meshtest::runtime::device_kernels
