// Device kernels of the StableHLO structural ops that compute: scatter with a
// combiner, dot_general (bf16 through the oneDNN matmul after transposes to
// [B,M,K] x [B,K,N]; integers in a plain loop), convolution (a direct loop,
// f32 accumulation), reduce with a combiner, reduce_arg, reduce_window,
// select_and_scatter and sort_permutation. bf16 math is f32 with one
// rounding per result; a scatter or select_and_scatter update rounds as it
// lands (updates land one after another). Integers wrap.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/parallel.h"
#include "runtime/device/device_kernels_structural.h"

namespace meshtest::runtime::device_kernels {

namespace {

size_t at(int64_t i) { return static_cast<size_t>(i); }

enum class Op2 { Assign, Add, Mul, Max, Min, And, Or, Xor };

Op2 combiner_of(const std::string& name) {
  if (name == "assign") return Op2::Assign;
  if (name == "add") return Op2::Add;
  if (name == "mul") return Op2::Mul;
  if (name == "max") return Op2::Max;
  if (name == "min") return Op2::Min;
  if (name == "and") return Op2::And;
  if (name == "or") return Op2::Or;
  if (name == "xor") return Op2::Xor;
  throw RuntimeError("unknown combiner '" + name + "'");
}

// a (op) b in the math type M: f32 for bf16 (max/min propagate NaN, -0 < +0),
// wrapping integers, bool (add/max: or, mul/min: and).
template <class M>
M apply(Op2 op, M a, M b) {
  if constexpr (std::is_same_v<M, bool>) {
    switch (op) {
      case Op2::Assign:
        return b;
      case Op2::Add:
      case Op2::Max:
      case Op2::Or:
        return a || b;
      case Op2::Mul:
      case Op2::Min:
      case Op2::And:
        return a && b;
      case Op2::Xor:
        return a != b;
    }
    return b;
  } else if constexpr (std::is_floating_point_v<M>) {
    switch (op) {
      case Op2::Assign:
        return b;
      case Op2::Add:
        return a + b;
      case Op2::Mul:
        return a * b;
      case Op2::Max:
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<M>::quiet_NaN();
        return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
      case Op2::Min:
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<M>::quiet_NaN();
        return a == b ? (std::signbit(a) ? a : b) : std::min(a, b);
      default:
        throw RuntimeError("bitwise combiner on floats");
    }
  } else {
    using U = std::make_unsigned_t<M>;
    const uint64_t x = static_cast<U>(a), y = static_cast<U>(b);
    switch (op) {
      case Op2::Assign:
        return b;
      case Op2::Add:
        return static_cast<M>(static_cast<U>(x + y));
      case Op2::Mul:
        return static_cast<M>(static_cast<U>(x * y));
      case Op2::Max:
        return std::max(a, b);
      case Op2::Min:
        return std::min(a, b);
      case Op2::And:
        return static_cast<M>(static_cast<U>(x & y));
      case Op2::Or:
        return static_cast<M>(static_cast<U>(x | y));
      case Op2::Xor:
        return static_cast<M>(static_cast<U>(x ^ y));
    }
    return b;
  }
}

void unravel(int64_t linear, const Shape& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}

bool listed(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

void copy_into(const Tensor& x, Tensor& out) {
  if (x.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
}

// Offsets (in elements of a tensor with `strides`) of every index of `dims`, row-major.
std::vector<int64_t> offsets_of(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides) {
  std::vector<int64_t> offsets{0};
  for (int64_t d : dims) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * at(sizes[at(d)]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < sizes[at(d)]; ++i) next.push_back(base + i * strides[at(d)]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

}  // namespace

void scatter(const Tensor& operand, const Tensor& indices, const Tensor& updates, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t>& window_dims = attrs.get_ints("update_window_dims", {});
  const std::vector<int64_t>& inserted = attrs.get_ints("inserted_window_dims", {});
  const std::vector<int64_t>& input_batching = attrs.get_ints("input_batching_dims", {});
  const std::vector<int64_t>& indices_batching = attrs.get_ints("scatter_indices_batching_dims", {});
  const std::vector<int64_t>& to_operand = attrs.get_ints("scatter_dims_to_operand_dims");
  const int64_t ivd = attrs.get_int("index_vector_dim");
  const Op2 op = combiner_of(attrs.get_string("combiner"));
  copy_into(operand, out);
  const std::vector<int64_t> idx = read_indices(indices);
  const std::vector<int64_t> idx_strides = shape_strides(indices.shape());
  const std::vector<int64_t> out_strides = shape_strides(out.shape());
  std::vector<int64_t> operand_window, update_scatter, index_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!listed(inserted, d) && !listed(input_batching, d)) operand_window.push_back(d);
  }
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (!listed(window_dims, d)) update_scatter.push_back(d);
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != ivd) index_dims.push_back(d);
  }
  std::vector<int64_t> extent(at(operand.rank()), 1);
  for (size_t k = 0; k < operand_window.size(); ++k) extent[at(operand_window[k])] = updates.dim(window_dims[k]);
  const int64_t vector_stride = ivd < indices.rank() ? idx_strides[at(ivd)] : 0;
  visit_device_dtype(out.dtype(), [&](auto e) {
    using E = decltype(e);
    const auto* u = elements<E>(updates);
    auto* o = elements<E>(out);
    std::vector<int64_t> ui, target(at(operand.rank()));
    // Updates in row-major order; each element finds its window's start and skips a window not wholly inside.
    for (int64_t n = 0; n < updates.numel(); ++n) {
      unravel(n, updates.shape(), ui);
      int64_t index_base = 0;
      for (size_t k = 0; k < update_scatter.size(); ++k)
        index_base += ui[at(update_scatter[k])] * idx_strides[at(index_dims[k])];
      std::fill(target.begin(), target.end(), 0);
      for (size_t k = 0; k < to_operand.size(); ++k) {
        target[at(to_operand[k])] = idx[at(index_base + static_cast<int64_t>(k) * vector_stride)];
      }
      for (size_t k = 0; k < input_batching.size(); ++k) {
        const int64_t p = indices_batching[k];
        target[at(input_batching[k])] = ui[at(update_scatter[at(p < ivd ? p : p - 1)])];
      }
      bool inside = true;
      for (int64_t d = 0; d < operand.rank(); ++d) {
        inside = inside && target[at(d)] >= 0 && target[at(d)] <= operand.dim(d) - extent[at(d)];
      }
      if (!inside) continue;
      for (size_t k = 0; k < operand_window.size(); ++k) target[at(operand_window[k])] += ui[at(window_dims[k])];
      int64_t offset = 0;
      for (int64_t d = 0; d < operand.rank(); ++d) offset += target[at(d)] * out_strides[at(d)];
      o[offset] = E::store(apply(op, E::load(o[offset]), E::load(u[n])));
    }
  });
}

namespace {

// x's dims reordered to `order`, as a new contiguous tensor of x's dtype.
Tensor reordered(const Tensor& x, const std::vector<int64_t>& order, const Shape& as_shape) {
  const std::vector<int64_t> strides = shape_strides(x.shape());
  Shape shape;
  std::vector<int64_t> by_order;
  for (int64_t d : order) {
    shape.push_back(x.dim(d));
    by_order.push_back(strides[at(d)]);
  }
  Tensor out = Tensor::uninitialized(x.dtype(), shape);
  strided_read(x, by_order, 0, out);
  return out.reshaped(as_shape);
}

int64_t extent_of(const Tensor& x, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= x.dim(d);
  return n;
}

// The value of element i of an integer or bool tensor as a wrapping uint64, or of a bf16 one as f32.
template <class E>
auto widened(const typename E::storage* p, int64_t i) {
  using M = typename E::math;
  if constexpr (std::is_floating_point_v<M>) {
    return E::load(p[i]);
  } else if constexpr (std::is_same_v<M, bool>) {
    return static_cast<uint64_t>(E::load(p[i]) ? 1 : 0);
  } else {
    return static_cast<uint64_t>(static_cast<int64_t>(E::load(p[i])));
  }
}

}  // namespace

void dot_general(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t>& lb = attrs.get_ints("lhs_batching_dims", {});
  const std::vector<int64_t>& rb = attrs.get_ints("rhs_batching_dims", {});
  const std::vector<int64_t>& lc = attrs.get_ints("lhs_contracting_dims", {});
  const std::vector<int64_t>& rc = attrs.get_ints("rhs_contracting_dims", {});
  std::vector<int64_t> lhs_order = lb, rhs_order = rb, lf, rf;
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!listed(lb, d) && !listed(lc, d)) lf.push_back(d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!listed(rb, d) && !listed(rc, d)) rf.push_back(d);
  }
  lhs_order.insert(lhs_order.end(), lf.begin(), lf.end());
  lhs_order.insert(lhs_order.end(), lc.begin(), lc.end());
  rhs_order.insert(rhs_order.end(), rc.begin(), rc.end());
  rhs_order.insert(rhs_order.end(), rf.begin(), rf.end());
  const int64_t batch = extent_of(lhs, lb), m = extent_of(lhs, lf), k = extent_of(lhs, lc), n = extent_of(rhs, rf);
  const Tensor a = reordered(lhs, lhs_order, {batch, m, k});
  const Tensor b = reordered(rhs, rhs_order, {batch, k, n});
  if (out.numel() == 0) return;
  if (lhs.dtype() == DType::BF16 && out.dtype() == DType::BF16) {
    Tensor view = out.reshaped({batch, m, n});
    matmul(a, b, view);
    return;
  }
  visit_device_dtype(lhs.dtype(), [&](auto ein) {
    using In = decltype(ein);
    visit_device_dtype(out.dtype(), [&](auto eout) {
      using Out = decltype(eout);
      using MOut = typename Out::math;
      const auto* pa = elements<In>(a);
      const auto* pb = elements<In>(b);
      auto* po = elements<Out>(out);
      parallel_ranges(batch * m, 1, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t bi = r / m;
          for (int64_t j = 0; j < n; ++j) {
            if constexpr (std::is_floating_point_v<MOut>) {
              float acc = 0;
              for (int64_t p = 0; p < k; ++p) {
                acc += static_cast<float>(In::load(pa[r * k + p])) *
                       static_cast<float>(In::load(pb[(bi * k + p) * n + j]));
              }
              po[r * n + j] = Out::store(acc);
            } else if constexpr (std::is_floating_point_v<typename In::math>) {
              throw RuntimeError("dot_general of floats into an integer result is not a device kernel");
            } else {
              uint64_t acc = 0;
              for (int64_t p = 0; p < k; ++p) {
                const uint64_t prod = widened<In>(pa, r * k + p) * widened<In>(pb, (bi * k + p) * n + j);
                acc = std::is_same_v<MOut, bool> ? (acc | prod) : acc + prod;
              }
              if constexpr (std::is_same_v<MOut, bool>)
                po[r * n + j] = Out::store(acc != 0);
              else
                po[r * n + j] = Out::store(static_cast<MOut>(acc));
            }
          }
        }
      });
    });
  });
}

void convolution(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs, Tensor& out) {
  const size_t spatial = static_cast<size_t>(lhs.rank() - 2);
  const int64_t in_batch = attrs.get_int("input_batch_dimension");
  const int64_t in_feature = attrs.get_int("input_feature_dimension");
  const std::vector<int64_t>& in_spatial = attrs.get_ints("input_spatial_dimensions");
  const int64_t k_in = attrs.get_int("kernel_input_feature_dimension");
  const int64_t k_out = attrs.get_int("kernel_output_feature_dimension");
  const std::vector<int64_t>& k_spatial = attrs.get_ints("kernel_spatial_dimensions");
  const int64_t out_batch = attrs.get_int("output_batch_dimension");
  const int64_t out_feature = attrs.get_int("output_feature_dimension");
  const std::vector<int64_t>& out_spatial = attrs.get_ints("output_spatial_dimensions");
  const std::vector<int64_t> strides = list_or(attrs, "window_strides", spatial, 1);
  const std::vector<int64_t> padding = list_or(attrs, "padding", 2 * spatial, 0);
  const std::vector<int64_t> lhs_dilation = list_or(attrs, "lhs_dilation", spatial, 1);
  const std::vector<int64_t> rhs_dilation = list_or(attrs, "rhs_dilation", spatial, 1);
  const std::vector<int64_t> reversal = list_or(attrs, "window_reversal", spatial, 0);
  const int64_t feature_groups = attrs.get_int("feature_group_count", 1);
  const int64_t batch_groups = attrs.get_int("batch_group_count", 1);
  const int64_t outputs = rhs.dim(k_out);
  const int64_t per_group_in = rhs.dim(k_in);
  const std::vector<int64_t> ls = shape_strides(lhs.shape()), rs = shape_strides(rhs.shape());
  Shape window(spatial);
  for (size_t s = 0; s < spatial; ++s) window[s] = rhs.dim(k_spatial[s]);
  const int64_t taps = shape_numel(window);
  if (out.numel() == 0) return;
  if (lhs.dtype() != out.dtype()) throw RuntimeError("convolution changes the dtype: no device kernel");
  visit_device_dtype(lhs.dtype(), [&](auto e) {
    using E = decltype(e);
    const auto* pl = elements<E>(lhs);
    const auto* pr = elements<E>(rhs);
    auto* po = elements<E>(out);
    parallel_ranges(out.numel(), 32, [&](int64_t e0, int64_t e1) {
      std::vector<int64_t> oi, tap;
      for (int64_t o = e0; o < e1; ++o) {
        unravel(o, out.shape(), oi);
        const int64_t f = oi[at(out_feature)];
        const int64_t group = f / (outputs / feature_groups);
        const int64_t source_batch = (f / (outputs / batch_groups)) * out.dim(out_batch) + oi[at(out_batch)];
        std::conditional_t<std::is_floating_point_v<typename E::math>, float, uint64_t> acc = 0;
        for (int64_t t = 0; t < taps; ++t) {
          unravel(t, window, tap);
          int64_t lo = source_batch * ls[at(in_batch)], ro = f * rs[at(k_out)];
          bool inside = true;
          for (size_t s = 0; s < spatial && inside; ++s) {
            const int64_t w = reversal[s] != 0 ? window[s] - 1 - tap[s] : tap[s];
            const int64_t pos = oi[at(out_spatial[s])] * strides[s] + w * rhs_dilation[s] - padding[2 * s];
            inside = pos >= 0 && pos % lhs_dilation[s] == 0 && pos / lhs_dilation[s] < lhs.dim(in_spatial[s]);
            lo += (pos / lhs_dilation[s]) * ls[at(in_spatial[s])];
            ro += tap[s] * rs[at(k_spatial[s])];
          }
          if (!inside) continue;
          for (int64_t c = 0; c < per_group_in; ++c) {
            const int64_t li = lo + (group * per_group_in + c) * ls[at(in_feature)];
            const int64_t ri = ro + c * rs[at(k_in)];
            if constexpr (std::is_floating_point_v<typename E::math>) {
              acc += E::load(pl[li]) * E::load(pr[ri]);
            } else if constexpr (std::is_same_v<typename E::math, bool>) {
              acc |= widened<E>(pl, li) & widened<E>(pr, ri);
            } else {
              acc += widened<E>(pl, li) * widened<E>(pr, ri);
            }
          }
        }
        if constexpr (std::is_same_v<typename E::math, bool>)
          po[o] = E::store(acc != 0);
        else
          po[o] = E::store(static_cast<typename E::math>(acc));
      }
    });
  });
}

void reduce_combine(const Tensor& x, const Tensor& init, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t>& dims = attrs.get_ints("dimensions");
  const Op2 op = combiner_of(attrs.get_string("combiner"));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!listed(dims, d)) kept.push_back(d);
  }
  const std::vector<int64_t> strides = shape_strides(x.shape());
  const std::vector<int64_t> out_offsets = offsets_of(kept, x.shape(), strides);
  const std::vector<int64_t> in_offsets = offsets_of(dims, x.shape(), strides);
  if (out.numel() == 0) return;
  visit_device_dtype(x.dtype(), [&](auto e) {
    using E = decltype(e);
    const auto* in = elements<E>(x);
    auto* o = elements<E>(out);
    const auto start = E::load(elements<E>(init)[0]);
    parallel_ranges(out.numel(), 64, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        auto acc = start;
        for (int64_t off : in_offsets) acc = apply(op, acc, E::load(in[out_offsets[at(i)] + off]));
        o[i] = E::store(acc);
      }
    });
  });
}

void reduce_arg(const Tensor& x, const Attrs& attrs, Tensor& out) {
  const int64_t dim = normalize_axis(attrs.get_int("dimension"), x.rank());
  const bool want_max = attrs.get_string("direction") == "max";
  const int64_t extent = x.dim(dim);
  const int64_t stride = shape_strides(x.shape())[at(dim)];
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != dim) kept.push_back(d);
  }
  const std::vector<int64_t> bases = offsets_of(kept, x.shape(), shape_strides(x.shape()));
  std::vector<int64_t> chosen(bases.size(), 0);
  visit_device_dtype(x.dtype(), [&](auto e) {
    using E = decltype(e);
    using M = typename E::math;
    const auto* in = elements<E>(x);
    for (size_t i = 0; i < bases.size(); ++i) {
      M best = E::load(in[bases[i]]);
      for (int64_t k = 1; k < extent; ++k) {
        const M v = E::load(in[bases[i] + k * stride]);
        bool take = want_max ? v > best : v < best;
        if constexpr (std::is_floating_point_v<M>) take = !std::isnan(best) && (take || std::isnan(v));
        if (take) {
          best = v;
          chosen[i] = k;
        }
      }
    }
  });
  visit_device_dtype(out.dtype(), [&](auto e) {
    using E = decltype(e);
    auto* o = elements<E>(out);
    for (size_t i = 0; i < chosen.size(); ++i) o[i] = E::store(static_cast<typename E::math>(chosen[i]));
  });
}

namespace {

// Window geometry of reduce_window / select_and_scatter.
struct DeviceWindows {
  std::vector<int64_t> dims, strides, base_dilations, window_dilations, padding;
  DeviceWindows(const Attrs& attrs, size_t rank, bool dilations)
      : dims(attrs.get_ints("window_dimensions")),
        strides(list_or(attrs, "window_strides", rank, 1)),
        base_dilations(dilations ? list_or(attrs, "base_dilations", rank, 1) : std::vector<int64_t>(rank, 1)),
        window_dilations(dilations ? list_or(attrs, "window_dilations", rank, 1) : std::vector<int64_t>(rank, 1)),
        padding(list_or(attrs, "padding", 2 * rank, 0)) {}

  // Operand index of window position `w` of window `o`, or false for padding / dilation holes.
  bool operand_index(const std::vector<int64_t>& o, const std::vector<int64_t>& w, const Shape& operand,
                     std::vector<int64_t>& index) const {
    index.resize(operand.size());
    for (size_t d = 0; d < operand.size(); ++d) {
      const int64_t pos = o[d] * strides[d] + w[d] * window_dilations[d] - padding[2 * d];
      if (pos < 0 || pos % base_dilations[d] != 0 || pos / base_dilations[d] >= operand[d]) return false;
      index[d] = pos / base_dilations[d];
    }
    return true;
  }
};

int64_t offset_in(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

}  // namespace

void reduce_window(const Tensor& x, const Tensor& init, const Attrs& attrs, Tensor& out) {
  const Op2 op = combiner_of(attrs.get_string("combiner"));
  const DeviceWindows windows(attrs, x.shape().size(), true);
  const std::vector<int64_t> strides = shape_strides(x.shape());
  const int64_t taps = shape_numel(windows.dims);
  visit_device_dtype(x.dtype(), [&](auto e) {
    using E = decltype(e);
    const auto* in = elements<E>(x);
    auto* o = elements<E>(out);
    const auto start = E::load(elements<E>(init)[0]);
    parallel_ranges(out.numel(), 64, [&](int64_t i0, int64_t i1) {
      std::vector<int64_t> oi, wi, xi;
      for (int64_t i = i0; i < i1; ++i) {
        unravel(i, out.shape(), oi);
        auto acc = start;
        for (int64_t t = 0; t < taps; ++t) {
          unravel(t, windows.dims, wi);
          const bool inside = windows.operand_index(oi, wi, x.shape(), xi);
          acc = apply(op, acc, inside ? E::load(in[offset_in(xi, strides)]) : start);
        }
        o[i] = E::store(acc);
      }
    });
  });
}

void select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init, const Attrs& attrs,
                        Tensor& out) {
  const Op2 op = combiner_of(attrs.get_string("combiner", "add"));
  const std::string select = attrs.get_string("select");
  const DeviceWindows windows(attrs, operand.shape().size(), false);
  const std::vector<int64_t> strides = shape_strides(operand.shape());
  const int64_t taps = shape_numel(windows.dims);
  visit_device_dtype(operand.dtype(), [&](auto e) {
    using E = decltype(e);
    using M = typename E::math;
    const auto* in = elements<E>(operand);
    const auto* src = elements<E>(source);
    auto* o = elements<E>(out);
    const auto fill = elements<E>(init)[0];
    std::fill_n(o, out.numel(), fill);
    auto keep = [&select](M current, M candidate) {
      if (select == "ge") return current >= candidate;
      if (select == "gt") return current > candidate;
      if (select == "le") return current <= candidate;
      return current < candidate;
    };
    std::vector<int64_t> si, wi, xi;
    for (int64_t s = 0; s < source.numel(); ++s) {
      unravel(s, source.shape(), si);
      int64_t best = -1;
      for (int64_t t = 0; t < taps; ++t) {
        unravel(t, windows.dims, wi);
        if (!windows.operand_index(si, wi, operand.shape(), xi)) continue;
        const int64_t at_offset = offset_in(xi, strides);
        if (best < 0 || !keep(E::load(in[best]), E::load(in[at_offset]))) best = at_offset;
      }
      if (best >= 0) o[best] = E::store(apply(op, E::load(o[best]), E::load(src[s])));
    }
  });
}

void sort_permutation(const std::vector<const Tensor*>& keys, const Attrs& attrs, Tensor& out) {
  const Tensor& first = *keys[0];
  const int64_t dim = normalize_axis(attrs.get_int("dimension"), first.rank());
  const std::vector<int64_t> directions = list_or(attrs, "directions", keys.size(), 0);
  const bool total_order = attrs.get_int("total_order", 0) != 0;
  const int64_t extent = first.dim(dim);
  const int64_t stride = shape_strides(first.shape())[at(dim)];
  std::vector<int64_t> others;
  for (int64_t d = 0; d < first.rank(); ++d) {
    if (d != dim) others.push_back(d);
  }
  const std::vector<int64_t> bases = offsets_of(others, first.shape(), shape_strides(first.shape()));
  // compare[k](a, b): -1, 0 or 1 for elements a and b of key k (ascending).
  std::vector<std::function<int(int64_t, int64_t)>> compare;
  for (const Tensor* key : keys) {
    visit_device_dtype(key->dtype(), [&](auto e) {
      using E = decltype(e);
      const auto* p = elements<E>(*key);
      compare.push_back([p, total_order](int64_t a, int64_t b) {
        if constexpr (std::is_same_v<E, Bf16Element>) {
          if (total_order) {  // IEEE totalOrder on the bits
            auto rank = [](uint16_t bits) {
              return (bits & 0x8000u) ? static_cast<uint16_t>(~bits) : static_cast<uint16_t>(bits | 0x8000u);
            };
            const uint16_t x = rank(p[a]), y = rank(p[b]);
            return x < y ? -1 : (x > y ? 1 : 0);
          }
          const float x = load_bf16(p[a]), y = load_bf16(p[b]);  // NaNs tie with each other, above everything
          if (std::isnan(x) || std::isnan(y)) return std::isnan(x) == std::isnan(y) ? 0 : (std::isnan(x) ? 1 : -1);
          return x < y ? -1 : (y < x ? 1 : 0);
        } else {
          const auto x = E::load(p[a]), y = E::load(p[b]);
          return x < y ? -1 : (y < x ? 1 : 0);
        }
      });
    });
  }
  int64_t* o = static_cast<int64_t*>(out.raw_data());
  parallel_ranges(static_cast<int64_t>(bases.size()), 1, [&](int64_t s0, int64_t s1) {
    std::vector<int64_t> order(at(extent));
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t base = bases[at(s)];
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        for (size_t k = 0; k < compare.size(); ++k) {
          const int c = compare[k](base + a * stride, base + b * stride);
          if (c != 0) return directions[k] != 0 ? c > 0 : c < 0;
        }
        return false;
      });
      for (int64_t i = 0; i < extent; ++i) o[base + i * stride] = order[at(i)];
    }
  });
}

}  // namespace meshtest::runtime::device_kernels
