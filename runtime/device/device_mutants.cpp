// Device-kernel mutants: each catalogued mutant whose site is a device kernel
// (core/mutation.h) as a wrapper around the op's kernel-table entry. The
// wrappers change what the kernel sees (operands, attributes) or what it
// wrote (its bf16 result), never the output's shape or dtype.
#include "runtime/device/device_mutants.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
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

// ---- issue 33's classes ----

float round_bf16(float v) { return k::load_bf16(k::store_bf16(v)); }
float halved(float v) { return 0.5f * v; }
float exact_rsqrt(float v) { return 1.0f / std::sqrt(v); }
float exact_exp(float v) { return std::exp(v); }

// The bit-trick rsqrt estimate refined by one Newton step: at most 0.18% low.
float fast_rsqrt(float v) {
  if (!(v > 0.0f) || !std::isfinite(v)) return exact_rsqrt(v);
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits = 0x5f3759dfu - (bits >> 1);
  float y;
  std::memcpy(&y, &bits, sizeof y);
  return y * (1.5f - 0.5f * v * y * y);
}

// exp(x) = 2^n * 2^f with 2^f by a quadratic (about 0.3% error).
float approx_exp(float x) {
  const float t = x * 1.44269504f;
  if (t < -126.0f) return 0.0f;
  if (t > 127.0f) return FLT_MAX;
  const float n = std::floor(t);
  const float f = t - n;
  return std::ldexp(1.0f + f * (0.6565f + 0.344f * f), static_cast<int>(n));
}

// exp saturating at the largest float (no inf), as a device's exp unit does.
float saturating_exp(float x) { return std::min(std::exp(x), FLT_MAX); }

float gelu_sigmoid(float x) { return x / (1.0f + std::exp(-1.702f * x)); }

void store_into(Tensor& out, const Tensor& t) { std::memcpy(out.raw_data(), t.raw_data(), out.nbytes()); }

// The output computed elementwise from operand 0 by fn (bf16 operands only).
MutatedKernel output_mapped(float (*fn)(float)) {
  return [fn](I i, In in, Tensor& out, DeviceKernel kernel) {
    if (in[0]->dtype() != DType::BF16 || out.dtype() != DType::BF16) return kernel(i, in, out);
    store_into(out, mapped(*in[0], fn));
  };
}

MutatedKernel attr_changed(std::string name, double (*change)(double)) {
  return [name, change](I i, In in, Tensor& out, DeviceKernel kernel) {
    if (!i.attrs.has(name)) return kernel(i, in, out);
    kernel(with_attr(i, name, change(i.attrs.get_float(name))), in, out);
  };
}

// t[start:end) along `axis`.
Tensor slice_of(const Tensor& t, int64_t axis, int64_t start, int64_t end) {
  Shape shape = t.shape();
  shape[static_cast<size_t>(axis)] = end - start;
  Tensor part(t.dtype(), shape);
  k::slice(t, Attrs{{"axis", axis}, {"start", start}, {"end", end}}, part);
  return part;
}

// The device accumulating partial sums in bf16: partial(begin, end, first,
// part) computes the contribution of [begin, end) of a length-n contraction
// (the first one also adds any bias); the partials of chunks of `chunk` are
// added in order, each add rounded to bf16.
using Partial = std::function<void(int64_t, int64_t, bool, Tensor&)>;
void bf16_accumulated(int64_t n, int64_t chunk, Tensor& out, const Partial& partial) {
  Tensor sum(out.dtype(), out.shape());
  Tensor part(out.dtype(), out.shape());
  partial(0, std::min(n, chunk), true, sum);
  for (int64_t begin = chunk; begin < n; begin += chunk) {
    partial(begin, std::min(n, begin + chunk), false, part);
    Tensor next(out.dtype(), out.shape());
    k::binary(OpKind::Add, sum, part, next);
    sum = std::move(next);
  }
  store_into(out, sum);
}

constexpr int64_t kTileK = 32;  // a tile's side: the K of one partial product

// The kernel over `chunk`-wide slices of its input's axis `x_axis` and its
// weight's dim 1 (the bias with the first slice only), the partials added in bf16.
void sliced_bf16_accumulation(I i, In in, Tensor& out, DeviceKernel kernel, int64_t x_axis, int64_t depth,
                              int64_t chunk) {
  bf16_accumulated(depth, chunk, out, [&](int64_t b, int64_t e, bool first, Tensor& part) {
    const Tensor xs = slice_of(*in[0], x_axis, b, e);
    const Tensor ws = slice_of(*in[1], 1, b, e);
    std::vector<const Tensor*> operands{&xs, &ws};
    if (first && in.size() > 2) operands.push_back(in[2]);
    kernel(i, operands, part);
  });
}

void linear_bf16_accumulation(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const Tensor& w = *in[1];
  const int64_t depth = x.dim(-1);
  if (out.dtype() != DType::BF16 || w.dtype() != DType::BF16 || w.rank() != 2 || depth <= kTileK) {
    return kernel(i, in, out);
  }
  sliced_bf16_accumulation(i, in, out, kernel, x.rank() - 1, depth, kTileK);
}

// Input channels split so each partial covers at least a tile's K (C*KH*KW).
void conv2d_bf16_accumulation(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const Tensor& w = *in[1];
  if (out.dtype() != DType::BF16 || w.dtype() != DType::BF16 || w.rank() != 4 || i.attrs.get_int("groups", 1) != 1) {
    return kernel(i, in, out);
  }
  const int64_t taps = std::max<int64_t>(1, w.dim(2) * w.dim(3));
  const int64_t chunk = (kTileK + taps - 1) / taps;
  if (x.dim(1) <= chunk) return kernel(i, in, out);
  sliced_bf16_accumulation(i, in, out, kernel, 1, x.dim(1), chunk);
}

// a[..., M, K] @ b[..., K, N] in 32-wide K tiles added in bf16.
void matmul_bf16_accumulation(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& a = *in[0];
  const Tensor& b = *in[1];
  if (in.size() != 2 || out.dtype() != DType::BF16 || a.dtype() != DType::BF16 || b.dtype() != DType::BF16 ||
      a.rank() < 2 || b.rank() < 2 || a.dim(-1) <= kTileK) {
    return kernel(i, in, out);
  }
  bf16_accumulated(a.dim(-1), kTileK, out, [&](int64_t begin, int64_t end, bool, Tensor& part) {
    const Tensor as = slice_of(a, a.rank() - 1, begin, end);
    const Tensor bs = slice_of(b, b.rank() - 2, begin, end);
    kernel(i, {&as, &bs}, part);
  });
}

// The one axis a reduction reduces, or -1.
int64_t single_reduced_axis(I i, const Tensor& x) {
  const std::vector<int64_t>& axes = i.attrs.get_ints("axes");
  return axes.size() == 1 ? normalize_axis(axes[0], x.rank()) : -1;
}

void reduce_sum_skips_last(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const int64_t axis = single_reduced_axis(i, x);
  if (axis < 0 || x.dim(axis) < 2) return kernel(i, in, out);
  kernel(i, with_operand(in, 0, slice_of(x, axis, 0, x.dim(axis) - 1)), out);
}

void reduce_sum_bf16_accumulation(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& x = *in[0];
  const int64_t axis = single_reduced_axis(i, x);
  if (axis < 0 || x.dim(axis) < 2 || x.dtype() != DType::BF16) return kernel(i, in, out);
  bf16_accumulated(x.dim(axis), 1, out, [&](int64_t b, int64_t e, bool, Tensor& part) {
    const Tensor piece = slice_of(x, axis, b, e);
    kernel(i, {&piece}, part);
  });
}

// Row r of every [.., n, m] matrix of `t` holds row r+1; the last row stays.
Tensor rows_shifted_up(const Tensor& t) {
  Tensor shifted(t.dtype(), t.shape());
  std::memcpy(shifted.raw_data(), t.raw_data(), t.nbytes());
  const int64_t n = t.dim(-2);
  const size_t row = static_cast<size_t>(t.dim(-1)) * dtype_size(t.dtype());
  const int64_t matrices = n * t.dim(-1) == 0 ? 0 : t.numel() / (n * t.dim(-1));
  auto* dst = static_cast<uint8_t*>(shifted.raw_data());
  for (int64_t m = 0; m < matrices; ++m) {
    uint8_t* base = dst + static_cast<size_t>(m * n) * row;
    std::memmove(base, base + row, static_cast<size_t>(n - 1) * row);
  }
  return shifted;
}

void sdpa_mask_row_off_by_one(I i, In in, Tensor& out, DeviceKernel kernel) {
  if (in.size() < 4 || in[3]->rank() < 2 || in[3]->dim(-2) < 2) return kernel(i, in, out);
  kernel(i, with_operand(in, 3, rows_shifted_up(*in[3])), out);
}

void max_pool2d_window_shifted(I i, In in, Tensor& out, DeviceKernel kernel) {
  if (in[0]->rank() < 2 || in[0]->dim(-2) < 2) return kernel(i, in, out);
  kernel(i, with_operand(in, 0, rows_shifted_up(*in[0])), out);
}

// Grouped-query attention's matmul: a [.., H, G, ...] against b [.., H, 1,
// ...] broadcast over the group dim; the mutant gives group g of head h the
// operand of head (h + g) mod H.
void gqa_kv_head_rotated(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& a = *in[0];
  const Tensor& b = *in[1];
  const int64_t rank = a.rank();
  if (b.rank() != rank || rank < 4 || b.dtype() != DType::BF16) return kernel(i, in, out);
  for (int64_t j = 1; j + 2 < rank; ++j) {
    const int64_t heads = b.dim(j - 1), group = a.dim(j);
    if (b.dim(j) != 1 || group < 2 || heads < 2 || a.dim(j - 1) != heads) continue;
    Shape shape = b.shape();
    shape[static_cast<size_t>(j)] = group;
    Tensor expanded(b.dtype(), shape);
    int64_t outer = 1;
    for (int64_t d = 0; d + 1 < j; ++d) outer *= b.dim(d);
    const size_t slab = b.nbytes() / static_cast<size_t>(outer * heads);
    const auto* src = static_cast<const uint8_t*>(b.raw_data());
    auto* dst = static_cast<uint8_t*>(expanded.raw_data());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t g = 0; g < group; ++g) {
          std::memcpy(dst + static_cast<size_t>((o * heads + h) * group + g) * slab,
                      src + static_cast<size_t>(o * heads + (h + g) % heads) * slab, slab);
        }
      }
    }
    return kernel(i, with_operand(in, 1, expanded), out);
  }
  kernel(i, in, out);
}

void div_via_bf16_reciprocal(I i, In in, Tensor& out, DeviceKernel kernel) {
  if (in[0]->dtype() != DType::BF16 || in[1]->dtype() != DType::BF16 || out.dtype() != DType::BF16) {
    return kernel(i, in, out);
  }
  k::binary(OpKind::Mul, *in[0], mapped(*in[1], [](float v) { return 1.0f / v; }), out);
}

// Row normalization done another way (layer_norm with beta, rms_norm without).
struct NormVariant {
  bool center = true;      // subtract the row mean (layer_norm's statistics)
  bool bf16_sums = false;  // accumulate the sums in bf16
  bool one_pass = false;   // variance as E[x^2] - E[x]^2
  float (*inv_sqrt)(float) = exact_rsqrt;
};

void normalize_rows(const Tensor& x, const Tensor& gamma, const Tensor* beta, float eps, NormVariant v, Tensor& out) {
  k::require_bf16(x, "normalized input");
  const int64_t d = x.dim(-1);
  const int64_t rows = d == 0 ? 0 : x.numel() / d;
  const uint16_t* in = x.data<uint16_t>();
  const uint16_t* g = gamma.data<uint16_t>();
  const uint16_t* b = beta != nullptr ? beta->data<uint16_t>() : nullptr;
  uint16_t* o = out.data<uint16_t>();
  auto add = [&](float acc, float value) { return v.bf16_sums ? round_bf16(acc + value) : acc + value; };
  std::vector<float> row(static_cast<size_t>(d));
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f, squares = 0.0f;
    for (int64_t c = 0; c < d; ++c) {
      const float value = row[static_cast<size_t>(c)] = k::load_bf16(in[r * d + c]);
      sum = add(sum, value);
      squares = add(squares, value * value);
    }
    const float mean = v.center ? sum / static_cast<float>(d) : 0.0f;
    float variance = squares / static_cast<float>(d) - mean * mean;
    if (!v.one_pass) {
      float centered = 0.0f;
      for (float value : row) centered = add(centered, (value - mean) * (value - mean));
      variance = centered / static_cast<float>(d);
    }
    const float inv = v.inv_sqrt(std::max(variance, 0.0f) + eps);
    for (int64_t c = 0; c < d; ++c) {
      const float shift = b != nullptr ? k::load_bf16(b[c]) : 0.0f;
      o[r * d + c] = k::store_bf16((row[static_cast<size_t>(c)] - mean) * inv * k::load_bf16(g[c]) + shift);
    }
  }
}

MutatedKernel layer_norm_as(NormVariant v) {
  return [v](I i, In in, Tensor& out, DeviceKernel) {
    normalize_rows(*in[0], *in[1], in[2], static_cast<float>(i.attrs.get_float("eps", 1e-5)), v, out);
  };
}

MutatedKernel rms_norm_as(NormVariant v) {
  return [v](I i, In in, Tensor& out, DeviceKernel) {
    normalize_rows(*in[0], *in[1], nullptr, static_cast<float>(i.attrs.get_float("eps")), v, out);
  };
}

// Softmax done another way.
struct SoftmaxVariant {
  bool subtract_max = true;
  bool bf16_sum = false;  // accumulate the denominator in bf16
  float (*exp)(float) = exact_exp;
};

MutatedKernel softmax_as(SoftmaxVariant v) {
  return [v](I i, In in, Tensor& out, DeviceKernel) {
    const Tensor& x = *in[0];
    k::require_bf16(x, "softmax input");
    const int64_t axis = normalize_axis(i.attrs.get_int("axis", -1), x.rank());
    const int64_t len = x.dim(axis);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t lines = len == 0 ? 0 : x.numel() / len;
    const uint16_t* src = x.data<uint16_t>();
    uint16_t* o = out.data<uint16_t>();
    std::vector<float> line(static_cast<size_t>(len));
    for (int64_t l = 0; l < lines; ++l) {
      const int64_t start = (l / inner) * len * inner + l % inner;
      float max = v.subtract_max ? -FLT_MAX : 0.0f;
      for (int64_t e = 0; e < len; ++e) {
        line[static_cast<size_t>(e)] = k::load_bf16(src[start + e * inner]);
        if (v.subtract_max) max = std::max(max, line[static_cast<size_t>(e)]);
      }
      float sum = 0.0f;
      for (float& value : line) {
        value = v.exp(value - max);
        sum = v.bf16_sum ? round_bf16(sum + value) : sum + value;
      }
      const float inv = std::isfinite(1.0f / sum) ? 1.0f / sum : 0.0f;
      for (int64_t e = 0; e < len; ++e) o[start + e * inner] = k::store_bf16(line[static_cast<size_t>(e)] * inv);
    }
  };
}

// Repeated ids: only the last occurrence's gradient row survives (each write
// overwrites the row instead of adding to it).
template <class Id>
Tensor last_occurrences_only(const Tensor& ids, const Tensor& dy) {
  Tensor kept(dy.dtype(), dy.shape());
  std::memcpy(kept.raw_data(), dy.raw_data(), dy.nbytes());
  const int64_t n = ids.numel();
  const size_t row = n == 0 ? 0 : dy.nbytes() / static_cast<size_t>(n);
  std::set<int64_t> seen;
  for (int64_t j = n; j-- > 0;) {
    if (!seen.insert(static_cast<int64_t>(ids.data<Id>()[j])).second) {
      std::memset(static_cast<uint8_t*>(kept.raw_data()) + static_cast<size_t>(j) * row, 0, row);
    }
  }
  return kept;
}

void embedding_grad_overwrite(I i, In in, Tensor& out, DeviceKernel kernel) {
  const Tensor& ids = *in[0];
  if (ids.dtype() == DType::I64) return kernel(i, with_operand(in, 1, last_occurrences_only<int64_t>(ids, *in[1])), out);
  if (ids.dtype() == DType::I32) return kernel(i, with_operand(in, 1, last_occurrences_only<int32_t>(ids, *in[1])), out);
  kernel(i, in, out);
}

// A decode step's KV-cache append: concat of the cache [B, H, P, D] and one
// new position [B, H, 1, D] along axis 2.
bool is_cache_append(I i, In in) {
  if (in.size() != 2 || in[0]->rank() != 4 || in[1]->rank() != 4) return false;
  return normalize_axis(i.attrs.get_int("axis"), 4) == 2 && in[0]->dim(2) >= 1 && in[1]->dim(2) == 1;
}

// What a broken append does to one head's n slots (the last one is new):
// slots, the appended rows [B*H, D], the head's index b*H+h, H, n, row bytes.
using CacheFix = void (*)(uint8_t*, const uint8_t*, int64_t, int64_t, int64_t, size_t);

void write_one_position_early(uint8_t* slots, const uint8_t*, int64_t, int64_t, int64_t n, size_t row) {
  std::memcpy(slots + static_cast<size_t>(n - 2) * row, slots + static_cast<size_t>(n - 1) * row, row);
  std::memset(slots + static_cast<size_t>(n - 1) * row, 0, row);
}

void stale_last_row(uint8_t* slots, const uint8_t*, int64_t, int64_t, int64_t n, size_t row) {
  std::memcpy(slots + static_cast<size_t>(n - 1) * row, slots + static_cast<size_t>(n - 2) * row, row);
}

void next_heads_row(uint8_t* slots, const uint8_t* appended, int64_t head, int64_t heads, int64_t n, size_t row) {
  const int64_t next = head - head % heads + (head + 1) % heads;
  std::memcpy(slots + static_cast<size_t>(n - 1) * row, appended + static_cast<size_t>(next) * row, row);
}

MutatedKernel after_cache_append(CacheFix fix) {
  return [fix](I i, In in, Tensor& out, DeviceKernel kernel) {
    kernel(i, in, out);
    if (!is_cache_append(i, in)) return;
    const int64_t heads = out.dim(1), n = out.dim(2);
    const size_t row = static_cast<size_t>(out.dim(3)) * dtype_size(out.dtype());
    auto* data = static_cast<uint8_t*>(out.raw_data());
    const auto* appended = static_cast<const uint8_t*>(in[1]->raw_data());
    for (int64_t head = 0; head < out.dim(0) * heads; ++head) {
      fix(data + static_cast<size_t>(head * n) * row, appended, head, heads, n, row);
    }
  };
}

struct DeviceMutant {
  OpKind op;
  MutatedKernel kernel;
};

// Indexed by MutantId (slot 0, None, stays empty).
using Table = std::vector<DeviceMutant>;

Table build() {
  using M = MutantId;
  Table t(mutant_catalogue().size() + 1);
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
  set(M::RmsNormWeightIgnored, operand_filled(1, 1.0f));
  set(M::SdpaScaleIgnored, attr_changed("scale", [](double) { return 1.0; }));
  set(M::RmsNormMeanSubtracted, rms_norm_as({.center = true}));
  set(M::TanhHalfArgument, input_mapped(halved));
  set(M::SdpaMaskRowOffByOne, sdpa_mask_row_off_by_one);
  set(M::SdpaScaleOneOverD, attr_changed("scale", [](double scale) { return scale * scale; }));
  set(M::GqaKvHeadRotated, gqa_kv_head_rotated);
  set(M::MaxPool2dWindowShifted, max_pool2d_window_shifted);
  set(M::ReduceSumSkipsLast, reduce_sum_skips_last);
  set(M::ReduceSumBf16Accumulation, reduce_sum_bf16_accumulation);
  set(M::LinearBf16Accumulation, linear_bf16_accumulation);
  set(M::Conv2dBf16Accumulation, conv2d_bf16_accumulation);
  set(M::LayerNormBf16Statistics, layer_norm_as({.bf16_sums = true}));
  set(M::SoftmaxBf16Accumulation, softmax_as({.bf16_sum = true}));
  set(M::DivBf16Reciprocal, div_via_bf16_reciprocal);
  set(M::RsqrtFastApprox, output_mapped(fast_rsqrt));
  set(M::LayerNormFastRsqrt, layer_norm_as({.inv_sqrt = fast_rsqrt}));
  set(M::RmsNormFastRsqrt, rms_norm_as({.center = false, .inv_sqrt = fast_rsqrt}));
  set(M::SoftmaxApproxExp, softmax_as({.exp = approx_exp}));
  set(M::GeluSigmoidApprox, output_mapped(gelu_sigmoid));
  set(M::SoftmaxNoMaxSubtraction, softmax_as({.subtract_max = false, .exp = saturating_exp}));
  set(M::LayerNormEpsIgnored, [](I i, In in, Tensor& out, DeviceKernel kernel) {
    kernel(with_attr(i, "eps", 0.0), in, out);
  });
  set(M::LayerNormOnePassVariance, layer_norm_as({.one_pass = true}));
  set(M::EmbeddingGradOverwrite, embedding_grad_overwrite);
  set(M::KvCacheWriteOneEarly, after_cache_append(write_one_position_early));
  set(M::KvCacheStaleRow, after_cache_append(stale_last_row));
  set(M::KvCacheWrongHead, after_cache_append(next_heads_row));
  set(M::MatmulBf16Accumulation, matmul_bf16_accumulation);
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
  const DeviceMutant& mutant = table.at(static_cast<size_t>(id));
  if (!mutant.kernel || mutant.op != instr.kind) return false;
  mutant.kernel(instr, in, out, kernel);
  return true;
}

}  // namespace meshtest::runtime
