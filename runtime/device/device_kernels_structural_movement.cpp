// Device data-movement kernels of the StableHLO structural ops: elements of
// any dtype are copied untouched. broadcast_in_dim, reverse and
// dynamic_slice read a strided view; pad and dynamic_update_slice write a
// box into the result; gather and take_along_axis compute each result
// element's source index directly.
#include <algorithm>
#include <limits>

#include "core/parallel.h"
#include "runtime/device/device_kernels_structural.h"

namespace meshtest::runtime::device_kernels {

namespace {

size_t at(int64_t i) { return static_cast<size_t>(i); }

// Calls fn(T{}) with the unsigned type of t's element size (copies move bits).
template <class Fn>
void with_element_bits(const Tensor& t, Fn&& fn) {
  switch (dtype_size(t.dtype())) {
    case 1:
      fn(uint8_t{});
      return;
    case 2:
      fn(uint16_t{});
      return;
    case 4:
      fn(uint32_t{});
      return;
    case 8:
      fn(uint64_t{});
      return;
    default:
      throw RuntimeError("data movement does not support dtype " + std::string(dtype_name(t.dtype())));
  }
}

// Multi-index of row-major position `linear` in `shape`.
void unravel(int64_t linear, const Shape& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}

// Start operands in[first..] as clamped start indices: [0, shape[d] - extent[d]].
std::vector<int64_t> clamped_starts(const std::vector<const Tensor*>& in, size_t first, const Shape& shape,
                                    const Shape& extent) {
  if (in.size() - first != shape.size()) throw RuntimeError("one start index per dimension expected");
  std::vector<int64_t> starts(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    starts[d] = std::clamp<int64_t>(read_indices(*in[first + d]).at(0), 0, std::max<int64_t>(shape[d] - extent[d], 0));
  }
  return starts;
}

int64_t linear_offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

}  // namespace

std::vector<int64_t> read_indices(const Tensor& t) {
  std::vector<int64_t> out(at(t.numel()));
  visit_device_dtype(t.dtype(), [&](auto e) {
    using E = decltype(e);
    using M = typename E::math;
    if constexpr (std::is_floating_point_v<M>) {
      throw RuntimeError("indices must be integers");
    } else {
      const auto* p = elements<E>(t);
      for (size_t i = 0; i < out.size(); ++i) {
        const M v = E::load(p[i]);
        if constexpr (std::is_same_v<M, uint64_t>) {
          out[i] = static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max()));
        } else {
          out[i] = static_cast<int64_t>(v);
        }
      }
    }
  });
  return out;
}

std::vector<int64_t> list_or(const Attrs& attrs, const std::string& name, size_t size, int64_t fill) {
  std::vector<int64_t> list = attrs.get_ints(name, {});
  if (list.empty()) list.assign(size, fill);
  if (list.size() != size) throw RuntimeError("attribute '" + name + "' needs " + std::to_string(size) + " entries");
  return list;
}

void strided_read(const Tensor& src, const std::vector<int64_t>& strides, int64_t base, Tensor& out) {
  const Shape& shape = out.shape();
  const int64_t count = out.numel();
  if (count == 0) return;
  const int64_t inner = shape.empty() ? 1 : shape.back();
  const int64_t inner_stride = shape.empty() ? 0 : strides.back();
  with_element_bits(src, [&](auto bits) {
    using T = decltype(bits);
    const T* s = static_cast<const T*>(src.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    parallel_ranges(count / inner, std::max<int64_t>(1, 16384 / inner), [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> index;
      for (int64_t row = r0; row < r1; ++row) {
        unravel(row * inner, shape, index);
        const int64_t from = base + linear_offset(index, strides);
        for (int64_t j = 0; j < inner; ++j) o[row * inner + j] = s[from + j * inner_stride];
      }
    });
  });
}

void strided_write(const Tensor& src, const Shape& box, const std::vector<int64_t>& src_strides, int64_t src_base,
                   Tensor& dst, const std::vector<int64_t>& dst_strides, int64_t dst_base) {
  const int64_t count = shape_numel(box);
  if (count == 0) return;
  with_element_bits(src, [&](auto bits) {
    using T = decltype(bits);
    const T* s = static_cast<const T*>(src.raw_data());
    T* d = static_cast<T*>(dst.raw_data());
    parallel_ranges(count, 4096, [&](int64_t e0, int64_t e1) {
      std::vector<int64_t> index;
      for (int64_t e = e0; e < e1; ++e) {
        unravel(e, box, index);
        d[dst_base + linear_offset(index, dst_strides)] = s[src_base + linear_offset(index, src_strides)];
      }
    });
  });
}

void broadcast_in_dim(const Tensor& x, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t>& dims = attrs.get_ints("broadcast_dimensions");
  const std::vector<int64_t> x_strides = shape_strides(x.shape());
  std::vector<int64_t> strides(out.shape().size(), 0);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (x.shape()[d] != 1) strides[at(dims[d])] = x_strides[d];
  }
  strided_read(x, strides, 0, out);
}

void reverse(const Tensor& x, const Attrs& attrs, Tensor& out) {
  std::vector<int64_t> strides = shape_strides(x.shape());
  int64_t base = 0;
  for (int64_t d : attrs.get_ints("dimensions")) {
    base += (x.dim(d) - 1) * strides[at(d)];
    strides[at(d)] = -strides[at(d)];
  }
  strided_read(x, strides, base, out);
}

void dynamic_slice(const std::vector<const Tensor*>& in, Tensor& out) {
  const Tensor& x = *in[0];
  const std::vector<int64_t> strides = shape_strides(x.shape());
  strided_read(x, strides, linear_offset(clamped_starts(in, 1, x.shape(), out.shape()), strides), out);
}

void dynamic_update_slice(const std::vector<const Tensor*>& in, Tensor& out) {
  const Tensor& x = *in[0];
  const Tensor& update = *in[1];
  if (x.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
  const std::vector<int64_t> strides = shape_strides(x.shape());
  const std::vector<int64_t> starts = clamped_starts(in, 2, x.shape(), update.shape());
  strided_write(update, update.shape(), shape_strides(update.shape()), 0, out, strides, linear_offset(starts, strides));
}

void pad(const Tensor& x, const Tensor& value, const Attrs& attrs, Tensor& out) {
  const size_t rank = x.shape().size();
  const std::vector<int64_t>& low = attrs.get_ints("low");
  const std::vector<int64_t> interior = list_or(attrs, "interior", rank, 0);
  // Fill with the padding value, then place every operand element that lands inside.
  with_element_bits(out, [&](auto bits) {
    using T = decltype(bits);
    std::fill_n(static_cast<T*>(out.raw_data()), out.numel(), *static_cast<const T*>(value.raw_data()));
  });
  const std::vector<int64_t> out_strides = shape_strides(out.shape());
  Shape box(rank);
  std::vector<int64_t> dst_strides(rank);
  int64_t src_base = 0, dst_base = 0;
  const std::vector<int64_t> x_strides = shape_strides(x.shape());
  for (size_t d = 0; d < rank; ++d) {
    const int64_t step = interior[d] + 1;
    int64_t first = 0;
    while (first < x.shape()[d] && low[d] + first * step < 0) ++first;
    int64_t end = first;
    while (end < x.shape()[d] && low[d] + end * step < out.shape()[d]) ++end;
    box[d] = end - first;
    src_base += first * x_strides[d];
    dst_base += (low[d] + first * step) * out_strides[d];
    dst_strides[d] = step * out_strides[d];
  }
  strided_write(x, box, x_strides, src_base, out, dst_strides, dst_base);
}

void gather(const Tensor& operand, const Tensor& indices, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t>& offset_dims = attrs.get_ints("offset_dims", {});
  const std::vector<int64_t>& collapsed = attrs.get_ints("collapsed_slice_dims", {});
  const std::vector<int64_t>& operand_batching = attrs.get_ints("operand_batching_dims", {});
  const std::vector<int64_t>& indices_batching = attrs.get_ints("start_indices_batching_dims", {});
  const std::vector<int64_t>& index_map = attrs.get_ints("start_index_map");
  const std::vector<int64_t>& slice_sizes = attrs.get_ints("slice_sizes");
  const int64_t ivd = attrs.get_int("index_vector_dim");
  const std::vector<int64_t> idx = read_indices(indices);
  const std::vector<int64_t> idx_strides = shape_strides(indices.shape());
  const std::vector<int64_t> operand_strides = shape_strides(operand.shape());
  auto listed = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  // Result dim -> role: offset dims walk the operand's window dims, the others the index positions.
  std::vector<int64_t> window_dims, batch_dims, index_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!listed(collapsed, d) && !listed(operand_batching, d)) window_dims.push_back(d);
  }
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (!listed(offset_dims, d)) batch_dims.push_back(d);
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != ivd) index_dims.push_back(d);
  }
  const int64_t vector_stride = ivd < indices.rank() ? idx_strides[at(ivd)] : 0;
  with_element_bits(operand, [&](auto bits) {
    using T = decltype(bits);
    const T* s = static_cast<const T*>(operand.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    parallel_ranges(out.numel(), 2048, [&](int64_t e0, int64_t e1) {
      std::vector<int64_t> r, start(at(operand.rank()));
      for (int64_t e = e0; e < e1; ++e) {
        unravel(e, out.shape(), r);
        int64_t index_base = 0;
        for (size_t k = 0; k < batch_dims.size(); ++k)
          index_base += r[at(batch_dims[k])] * idx_strides[at(index_dims[k])];
        std::fill(start.begin(), start.end(), 0);
        for (size_t k = 0; k < index_map.size(); ++k) {
          const int64_t d = index_map[k];
          start[at(d)] = std::clamp<int64_t>(idx[at(index_base + static_cast<int64_t>(k) * vector_stride)], 0,
                                             operand.dim(d) - slice_sizes[at(d)]);
        }
        for (size_t k = 0; k < operand_batching.size(); ++k) {
          const int64_t p = indices_batching[k];
          start[at(operand_batching[k])] = r[at(batch_dims[at(p < ivd ? p : p - 1)])];
        }
        for (size_t k = 0; k < window_dims.size(); ++k) start[at(window_dims[k])] += r[at(offset_dims[k])];
        o[e] = s[linear_offset(start, operand_strides)];
      }
    });
  });
}

void take_along_axis(const Tensor& x, const Tensor& indices, const Attrs& attrs, Tensor& out) {
  const int64_t axis = normalize_axis(attrs.get_int("axis"), x.rank());
  const std::vector<int64_t> idx = read_indices(indices);
  const std::vector<int64_t> x_strides = shape_strides(x.shape());
  with_element_bits(x, [&](auto bits) {
    using T = decltype(bits);
    const T* s = static_cast<const T*>(x.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    std::vector<int64_t> r;
    for (int64_t e = 0; e < out.numel(); ++e) {
      const int64_t v = idx[at(e)];
      if (v < 0 || v >= x.dim(axis)) throw RuntimeError("take_along_axis index " + std::to_string(v) + " out of range");
      unravel(e, out.shape(), r);
      r[at(axis)] = v;
      o[e] = s[linear_offset(r, x_strides)];
    }
  });
}

}  // namespace meshtest::runtime::device_kernels
