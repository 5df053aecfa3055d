// Device-kernel mutants: each catalogued mutant whose site is a device kernel
// (core/mutation.h) as a wrapper around the op's kernel-table entry. The
// wrappers change what the kernel sees (operands, attributes) or what it
// wrote (its bf16 result), never the output's shape or dtype.
#include "runtime/device/device_mutants.h"

#include <array>
#include <cstring>
#include <functional>
#include <string>

#include "core/error.h"
#include "core/mutation.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime {

namespace {

namespace k = device_kernels;
using I = const DeviceInstr&;
using In = const std::vector<const Tensor*>&;
using MutatedKernel = std::function<void(I, In, Tensor&, DeviceKernel)>;

// A bf16 copy of `x` with fn applied to every element.
template <class Fn>
Tensor mapped(const Tensor& x, Fn fn) {
  k::require_bf16(x, "mutated operand");
  Tensor out(DType::BF16, x.shape());
  const uint16_t* src = x.data<uint16_t>();
  uint16_t* dst = out.data<uint16_t>();
  for (int64_t i = 0; i < x.numel(); ++i) dst[i] = k::store_bf16(fn(k::load_bf16(src[i])));
  return out;
}

void scale_in_place(Tensor& t, double factor) {
  if (t.dtype() != DType::BF16) return;
  t = mapped(t, [f = static_cast<float>(factor)](float v) { return v * f; });
}

// The operands with operand `index` replaced by `replacement`.
std::vector<const Tensor*> with_operand(In in, size_t index, const Tensor& replacement) {
  std::vector<const Tensor*> changed = in;
  changed.at(index) = &replacement;
  return changed;
}

std::vector<const Tensor*> first(In in, size_t count) { return {in.begin(), in.begin() + static_cast<long>(count)}; }

DeviceInstr with_attr(I instr, const std::string& name, AttrValue value) {
  DeviceInstr changed = instr;
  changed.attrs.set(name, std::move(value));
  return changed;
}

MutatedKernel scaled(double factor) {
  return [factor](I i, In in, Tensor& out, DeviceKernel kernel) {
    kernel(i, in, out);
    scale_in_place(out, factor);
  };
}

// Operands beyond `count` are dropped (a bias, a mask).
MutatedKernel operands_dropped(size_t count) {
  return [count](I i, In in, Tensor& out, DeviceKernel kernel) {
    kernel(i, in.size() > count ? first(in, count) : in, out);
  };
}

// Operand `index` replaced by a tensor of its type filled with `value`.
MutatedKernel operand_filled(size_t index, float value) {
  return [index, value](I i, In in, Tensor& out, DeviceKernel kernel) {
    const Tensor filled = mapped(*in.at(index), [value](float) { return value; });
    kernel(i, with_operand(in, index, filled), out);
  };
}

MutatedKernel input_mapped(float (*fn)(float)) {
  return [fn](I i, In in, Tensor& out, DeviceKernel kernel) { kernel(i, with_operand(in, 0, mapped(*in[0], fn)), out); };
}

// sdpa's mask read at (key, query): the mask with its last two dims swapped,
// when it broadcasts to a square [S, S] score matrix.
void sdpa_mask_transposed(I i, In in, Tensor& out, DeviceKernel kernel) {
  const bool square = in.size() > 3 && in[0]->dim(-2) == in[1]->dim(-1) && in[3]->rank() >= 2;
  if (!square) return kernel(i, in, out);
  const Tensor& mask = *in[3];
  std::vector<int64_t> perm(static_cast<size_t>(mask.rank()));
  for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  Shape swapped = mask.shape();
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  Tensor transposed(mask.dtype(), swapped);
  k::transpose(mask, Attrs{{"perm", perm}}, transposed);
  kernel(i, with_operand(in, 3, transposed), out);
}

// Rows of `t` (its dim 0) rolled by one: row r holds row r+1, the last row 0.
Tensor rows_rolled(const Tensor& t) {
  Tensor rolled(t.dtype(), t.shape());
  const size_t row_bytes = t.nbytes() / static_cast<size_t>(t.dim(0));
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  auto* dst = static_cast<uint8_t*>(rolled.raw_data());
  std::memcpy(dst, src + row_bytes, t.nbytes() - row_bytes);
  std::memcpy(dst + t.nbytes() - row_bytes, src, row_bytes);
  return rolled;
}

// A [S, D] table broadcast over the batch dims of a [..., S, D] operand (the
// RoPE cos/sin application) read one position off.
void rope_table_off_by_one(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const Tensor& table = *in[1];
  const bool table_mul = table.rank() == 2 && x.rank() > 2 && table.dim(0) > 1 && table.dim(0) == x.dim(-2) &&
                         table.dim(1) == x.dim(-1);
  if (!table_mul) return kernel(i, in, out);
  kernel(i, with_operand(in, 1, rows_rolled(table)), out);
}

void residual_add_dropped(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& a = *in[0];
  if (a.shape() != in[1]->shape() || a.dtype() != out.dtype()) return kernel(i, in, out);
  std::memcpy(out.raw_data(), a.raw_data(), out.nbytes());
}

void slice_off_by_one(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const int64_t axis = normalize_axis(i.attrs.get_int("axis"), x.rank());
  const int64_t dim = x.dim(axis);
  const int64_t step = i.attrs.get_int("step", 1);
  int64_t start = i.attrs.get_int("start", 0);
  if (start < 0) start += dim;
  const int64_t last = start + (out.dim(axis) - 1) * step;
  if (out.dim(axis) == 0) return kernel(i, in, out);
  if (last + 1 < dim) return kernel(with_attr(i, "start", start + 1), in, out);
  if (start >= 1) return kernel(with_attr(i, "start", start - 1), in, out);
  kernel(i, in, out);
}

// Every operand after the first written one position early along the axis:
// positions [b, n) move to [b-1, n-1) (b = the first operand's length), the
// last position keeps its value.
void concat_off_by_one(I i, In in, Tensor& out, DeviceKernel kernel) {
  kernel(i, in, out);
  const int64_t axis = normalize_axis(i.attrs.get_int("axis"), out.rank());
  const int64_t n = out.dim(axis);
  const int64_t b = in[0]->dim(axis);
  if (in.size() < 2 || b < 1 || b >= n || out.numel() == 0) return;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.dim(d);
  const size_t slab = out.nbytes() / static_cast<size_t>(outer * n);  // bytes of one position
  auto* data = static_cast<uint8_t*>(out.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    uint8_t* base = data + static_cast<size_t>(o * n) * slab;
    std::memmove(base + static_cast<size_t>(b - 1) * slab, base + static_cast<size_t>(b) * slab,
                 static_cast<size_t>(n - b) * slab);
  }
}

template <class T>
Tensor ids_plus_one(const Tensor& ids, int64_t rows) {
  Tensor shifted(ids.dtype(), ids.shape());
  const T* src = ids.data<T>();
  T* dst = shifted.data<T>();
  for (int64_t j = 0; j < ids.numel(); ++j) dst[j] = static_cast<T>((static_cast<int64_t>(src[j]) + 1) % rows);
  return shifted;
}

void embedding_row_off_by_one(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& ids = *in[0];
  const int64_t rows = in[1]->dim(0);
  if (ids.dtype() == DType::I64) return kernel(i, with_operand(in, 0, ids_plus_one<int64_t>(ids, rows)), out);
  if (ids.dtype() == DType::I32) return kernel(i, with_operand(in, 0, ids_plus_one<int32_t>(ids, rows)), out);
  kernel(i, in, out);
}

void topk_mask_one_short(I i, In in, Tensor& out, DeviceKernel kernel) {
  const int64_t top = i.attrs.get_int("k");
  kernel(top > 1 ? with_attr(i, "k", top - 1) : i, in, out);
}

// Softmax over the neighbouring axis (the one before, else the one after)
// when it is longer than 1.
void softmax_wrong_axis(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const int64_t axis = normalize_axis(i.attrs.get_int("axis", -1), x.rank());
  if (axis >= 1 && x.dim(axis - 1) > 1) return kernel(with_attr(i, "axis", axis - 1), in, out);
  if (axis + 1 < x.rank() && x.dim(axis + 1) > 1) return kernel(with_attr(i, "axis", axis + 1), in, out);
  kernel(i, in, out);
}

void reduce_mean_wrong_count(I i, In in, Tensor& out, DeviceKernel kernel) {
  kernel(i, in, out);
  const double count = static_cast<double>(in[0]->numel()) / static_cast<double>(std::max<int64_t>(out.numel(), 1));
  scale_in_place(out, count / (count + 1.0));
}

void layer_norm_variance_unbiased(I i, In in, Tensor& out, DeviceKernel) {
  k::layer_norm(*in[0], *in[1], *in[2], i.attrs, out, /*variance_ddof=*/1);
}

float tempered(float v) { return v / 1.05f; }
float leaky(float v) { return v > 0.0f ? v : 0.01f * v; }

void relu_leaky(I, In in, Tensor& out, DeviceKernel) { out = mapped(*in[0], leaky); }

void gelu_tanh_for_exact(I i, In in, Tensor& out, DeviceKernel kernel) {
  kernel(with_attr(i, "approximate", std::string("tanh")), in, out);
}

struct DeviceMutant {
  OpKind op;
  MutatedKernel kernel;
};

using Table = std::array<DeviceMutant, static_cast<size_t>(MutantId::VjpMatmulTransposedOperand) + 1>;

Table build() {
  using M = MutantId;
  Table t{};
  auto set = [&t](M id, MutatedKernel kernel) {
    const MutantInfo& info = mutant_info(id);
    if (info.site != MutantSite::DeviceKernel || !info.op) throw Error("mutant '" + std::string(info.name) + "' is not a device-kernel mutant");
    t[static_cast<size_t>(id)] = DeviceMutant{*info.op, std::move(kernel)};
  };
  for (M id : {M::GeluScale1, M::SoftmaxScale1, M::LinearScale1, M::MatmulScale1, M::Conv2dScale1, M::SiluScale1,
               M::LayerNormScale1}) {
    set(id, scaled(1.01));
  }
  for (M id : {M::GeluScale5, M::SoftmaxScale5, M::LinearScale5, M::MatmulScale5, M::Conv2dScale5, M::SiluScale5,
               M::LayerNormScale5, M::RmsNormScale5, M::GlobalAvgPoolScale5}) {
    set(id, scaled(1.05));
  }
  set(M::LinearBiasIgnored, operands_dropped(2));
  set(M::Conv2dBiasIgnored, operands_dropped(2));
  set(M::SdpaMaskDropped, operands_dropped(3));
  set(M::LayerNormBetaIgnored, operand_filled(2, 0.0f));
  set(M::LayerNormGammaIgnored, operand_filled(1, 1.0f));
  set(M::GeluTanhForExact, gelu_tanh_for_exact);
  set(M::SoftmaxTemperature, input_mapped(tempered));
  set(M::LayerNormVarianceUnbiased, layer_norm_variance_unbiased);
  set(M::ReluLeaky, relu_leaky);
  set(M::SdpaMaskTransposed, sdpa_mask_transposed);
  set(M::RopeTableOffByOne, rope_table_off_by_one);
  set(M::ResidualAddDropped, residual_add_dropped);
  set(M::SliceOffByOne, slice_off_by_one);
  set(M::ConcatOffByOne, concat_off_by_one);
  set(M::EmbeddingRowOffByOne, embedding_row_off_by_one);
  set(M::TopkMaskOneShort, topk_mask_one_short);
  set(M::SoftmaxWrongAxis, softmax_wrong_axis);
  set(M::ReduceMeanWrongCount, reduce_mean_wrong_count);
  for (const MutantInfo& info : mutant_catalogue()) {
    if (info.site == MutantSite::DeviceKernel && !t[static_cast<size_t>(info.id)].kernel) {
      throw Error("device-kernel mutant '" + std::string(info.name) + "' has no behaviour in device_mutants.cpp");
    }
  }
  return t;
}

}  // namespace

bool run_mutated_kernel(const DeviceInstr& instr, const std::vector<const Tensor*>& in, Tensor& out,
                        DeviceKernel kernel) {
  const MutantId id = active_mutant();
  if (id == MutantId::None) return false;
  static const Table table = build();
  const DeviceMutant& mutant = table[static_cast<size_t>(id)];
  if (!mutant.kernel || mutant.op != instr.kind) return false;
  mutant.kernel(instr, in, out, kernel);
  return true;
}

}  // namespace meshtest::runtime
