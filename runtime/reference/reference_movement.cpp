// Reference kernels of the StableHLO data-movement ops for any element dtype:
// broadcast_in_dim, reverse and dynamic_slice (strided views copied), pad and
// dynamic_update_slice (a box copied into a filled or cloned tensor), and
// take_along_axis.
#include <algorithm>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "runtime/reference/reference_strided_loop.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

void copy_box(const Tensor& src, Tensor& dst, const Shape& box, const std::vector<int64_t>& src_strides,
              int64_t src_base, const std::vector<int64_t>& dst_strides, int64_t dst_base) {
  if (shape_numel(box) == 0) return;
  const StridedPlan<2> plan = make_strided_plan<2>(box, {src_strides, dst_strides}, {src_base, dst_base});
  visit_dtype(src.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* s = storage<Tag>(src);
    auto* d = storage<Tag>(dst);
    for_each_strided_run_in(
        plan, 0, shape_numel(plan.shape),
        [&](int64_t, const std::array<int64_t, 2>& off, int64_t len, const std::array<int64_t, 2>& step) {
          for (int64_t i = 0; i < len; ++i) d[off[1] + i * step[1]] = s[off[0] + i * step[0]];
        });
  });
}

Tensor filled(const Tensor& value, const Shape& shape) {
  if (value.numel() != 1) throw RuntimeError("the fill value must be a scalar, got " + shape_to_string(value.shape()));
  Tensor out = Tensor::uninitialized(value.dtype(), shape);
  visit_dtype(value.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    std::fill_n(storage<Tag>(out), out.numel(), storage<Tag>(value)[0]);
  });
  return out;
}

namespace {

size_t at(int64_t d) { return static_cast<size_t>(d); }

// Start indices in[first..] as int64, one per dimension of `shape`, each
// clamped to [0, shape[d] - extent[d]] (StableHLO's adjusted start indices).
std::vector<int64_t> clamped_starts(const std::vector<Tensor>& in, size_t first, const Shape& shape,
                                    const Shape& extent) {
  if (in.size() - first != shape.size()) {
    throw RuntimeError("expected " + std::to_string(shape.size()) + " start indices, got " +
                       std::to_string(in.size() - first));
  }
  std::vector<int64_t> starts(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const std::vector<int64_t> value = index_values(in[first + d]);
    if (value.size() != 1) throw RuntimeError("start index " + std::to_string(d) + " must be a scalar");
    starts[d] = std::clamp<int64_t>(value[0], 0, std::max<int64_t>(shape[d] - extent[d], 0));
  }
  return starts;
}

int64_t offset_of(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

}  // namespace

Tensor broadcast_in_dim(const Tensor& x, const Attrs& attrs) {
  const Shape& shape = attrs.get_ints("shape");
  const std::vector<int64_t>& dims = attrs.get_ints("broadcast_dimensions");
  if (dims.size() != static_cast<size_t>(x.rank())) {
    throw RuntimeError("broadcast_dimensions must have one entry per dimension of " + shape_to_string(x.shape()));
  }
  const std::vector<int64_t> in_strides = shape_strides(x.shape());
  std::vector<int64_t> strides(shape.size(), 0);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0 || at(dims[d]) >= shape.size()) throw RuntimeError("broadcast_dimensions out of range");
    if (x.shape()[d] != 1) {
      if (x.shape()[d] != shape[at(dims[d])]) throw RuntimeError("operand dimension does not match the result");
      strides[at(dims[d])] = in_strides[d];
    }
  }
  return copy_strided(x, shape, strides, 0);
}

Tensor reverse(const Tensor& x, const Attrs& attrs) {
  std::vector<int64_t> strides = shape_strides(x.shape());
  int64_t base = 0;
  for (int64_t d : attrs.get_ints("dimensions")) {
    if (d < 0 || d >= x.rank()) throw RuntimeError("reverse dimension " + std::to_string(d) + " out of range");
    base += (x.dim(d) - 1) * strides[at(d)];
    strides[at(d)] = -strides[at(d)];
  }
  return copy_strided(x, x.shape(), strides, x.numel() == 0 ? 0 : base);
}

Tensor dynamic_slice(const std::vector<Tensor>& in, const Attrs& attrs) {
  const Tensor& x = in[0];
  const Shape& sizes = attrs.get_ints("slice_sizes");
  if (sizes.size() != static_cast<size_t>(x.rank()))
    throw RuntimeError("slice_sizes must have one entry per dimension");
  const std::vector<int64_t> strides = shape_strides(x.shape());
  return copy_strided(x, sizes, strides, offset_of(clamped_starts(in, 1, x.shape(), sizes), strides));
}

Tensor dynamic_update_slice(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  const Tensor& update = in[1];
  if (update.dtype() != x.dtype() || update.rank() != x.rank()) {
    throw RuntimeError("update must have the operand's dtype and rank");
  }
  Tensor out = x.clone();
  const std::vector<int64_t> strides = shape_strides(x.shape());
  const std::vector<int64_t> starts = clamped_starts(in, 2, x.shape(), update.shape());
  copy_box(update, out, update.shape(), shape_strides(update.shape()), 0, strides, offset_of(starts, strides));
  return out;
}

Tensor pad(const Tensor& x, const Tensor& value, const Attrs& attrs) {
  const size_t rank = x.shape().size();
  const std::vector<int64_t>& low = attrs.get_ints("low");
  const std::vector<int64_t>& high = attrs.get_ints("high");
  const std::vector<int64_t> interior = ints_or_fill(attrs, "interior", rank, 0);
  if (low.size() != rank || high.size() != rank) throw RuntimeError("low and high need one entry per dimension");
  if (value.dtype() != x.dtype()) throw RuntimeError("the padding value must have the operand's dtype");
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape()[d];
    shape[d] = low[d] + (n > 0 ? (n - 1) * (interior[d] + 1) + 1 : 0) + high[d];
    if (shape[d] < 0) throw RuntimeError("padding gives a negative size in dimension " + std::to_string(d));
  }
  Tensor out = filled(value, shape);
  // Operand indices j land at low + j*step; the box is those inside [0, shape[d]).
  const std::vector<int64_t> src_strides = shape_strides(x.shape());
  const std::vector<int64_t> out_strides = shape_strides(shape);
  Shape box(rank);
  std::vector<int64_t> dst_strides(rank);
  int64_t src_base = 0, dst_base = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t step = interior[d] + 1;
    const int64_t first = low[d] >= 0 ? 0 : (-low[d] + step - 1) / step;
    const int64_t last = shape[d] - 1 - low[d] < 0 ? -1 : std::min(x.shape()[d] - 1, (shape[d] - 1 - low[d]) / step);
    box[d] = std::max<int64_t>(last - first + 1, 0);
    src_base += first * src_strides[d];
    dst_base += (low[d] + first * step) * out_strides[d];
    dst_strides[d] = step * out_strides[d];
  }
  copy_box(x, out, box, src_strides, src_base, dst_strides, dst_base);
  return out;
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, const Attrs& attrs) {
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis >= x.rank() || indices.rank() != x.rank()) {
    throw RuntimeError("take_along_axis: axis or indices rank does not fit " + shape_to_string(x.shape()));
  }
  const Shape& shape = indices.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[at(d)];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= shape[at(d)];
  const int64_t taken = shape[at(axis)];
  const int64_t extent = x.dim(axis);
  const std::vector<int64_t> idx = index_values(indices);
  for (int64_t v : idx) {
    if (v < 0 || v >= extent) {
      throw RuntimeError("index " + std::to_string(v) + " out of range [0, " + std::to_string(extent) + ")");
    }
  }
  Tensor out = Tensor::uninitialized(x.dtype(), shape);
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* s = storage<Tag>(x);
    auto* o = storage<Tag>(out);
    for (int64_t a = 0; a < outer; ++a) {
      for (int64_t k = 0; k < taken; ++k) {
        const int64_t row = (a * taken + k) * inner;
        for (int64_t b = 0; b < inner; ++b) o[row + b] = s[(a * extent + idx[at(row + b)]) * inner + b];
      }
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
