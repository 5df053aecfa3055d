// Reference gather and scatter (StableHLO semantics, batching dims included)
// for any element dtype. Both walk the positions of the index tensor (all
// its dims but index_vector_dim), find each position's window start in the
// operand, and move the window as a box: gather clamps the start so the
// window fits; scatter skips a window that does not fit wholly and applies
// the updates in row-major order, one combiner step at a time (each rounded
// to the element type, as sequential updates are).
#include <algorithm>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/parallel.h"
#include "runtime/reference/reference_combiners.h"
#include "runtime/reference/reference_strided_loop.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

namespace {

size_t at(int64_t d) { return static_cast<size_t>(d); }

bool contains(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The operand-side dimension numbers shared by gather and scatter (gather's names).
struct IndexedDims {
  std::vector<int64_t> collapsed;         // collapsed_slice_dims / inserted_window_dims
  std::vector<int64_t> operand_batching;  // operand_batching_dims / input_batching_dims
  std::vector<int64_t> indices_batching;  // start_indices_batching_dims / scatter_indices_batching_dims
  std::vector<int64_t> index_map;         // start_index_map / scatter_dims_to_operand_dims
  int64_t index_vector_dim;
};

// The index tensor walked position by position: positions are its index
// space without index_vector_dim; each yields the operand coordinates of its
// window's first element (start index + batching index), unclamped.
class IndexWalk {
 public:
  IndexWalk(const Tensor& indices, const IndexedDims& dims, int64_t operand_rank)
      : dims_(dims), values_(index_values(indices)), operand_rank_(operand_rank) {
    const Shape& shape = indices.shape();
    const std::vector<int64_t> strides = shape_strides(shape);
    const auto rank = static_cast<int64_t>(shape.size());
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dims.index_vector_dim) continue;
      position_shape_.push_back(shape[at(d)]);
      position_strides_.push_back(strides[at(d)]);
    }
    vector_stride_ = dims.index_vector_dim < rank ? strides[at(dims.index_vector_dim)] : 0;
  }

  const Shape& position_shape() const { return position_shape_; }
  int64_t positions() const { return shape_numel(position_shape_); }

  // Fills `coords` (the position's multi-index) and `start` (operand coordinates).
  void locate(int64_t position, std::vector<int64_t>& coords, std::vector<int64_t>& start) const {
    coords.assign(position_shape_.size(), 0);
    int64_t rem = position, base = 0;
    for (size_t d = position_shape_.size(); d-- > 0;) {
      coords[d] = rem % position_shape_[d];
      rem /= position_shape_[d];
      base += coords[d] * position_strides_[d];
    }
    start.assign(at(operand_rank_), 0);
    for (size_t k = 0; k < dims_.index_map.size(); ++k) {
      start[at(dims_.index_map[k])] = values_[at(base + static_cast<int64_t>(k) * vector_stride_)];
    }
    for (size_t i = 0; i < dims_.operand_batching.size(); ++i) {
      const int64_t d = dims_.indices_batching[i];
      start[at(dims_.operand_batching[i])] = coords[at(d < dims_.index_vector_dim ? d : d - 1)];
    }
  }

 private:
  const IndexedDims& dims_;
  std::vector<int64_t> values_;
  int64_t operand_rank_;
  Shape position_shape_;
  std::vector<int64_t> position_strides_;
  int64_t vector_stride_ = 0;
};

// Operand dims that are neither collapsed nor batching: the window dims, in order.
std::vector<int64_t> window_dims(int64_t rank, const IndexedDims& dims) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!contains(dims.collapsed, d) && !contains(dims.operand_batching, d)) out.push_back(d);
  }
  return out;
}

// Dims of a tensor of `rank` not in `listed`, in order.
std::vector<int64_t> other_dims(int64_t rank, const std::vector<int64_t>& listed) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!contains(listed, d)) out.push_back(d);
  }
  return out;
}

std::vector<int64_t> pick(const std::vector<int64_t>& values, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(values[at(d)]);
  return out;
}

int64_t dot(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  int64_t s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

Tensor gather(const Tensor& operand, const Tensor& start_indices, const Attrs& attrs) {
  const IndexedDims dims{attrs.get_ints("collapsed_slice_dims", {}), attrs.get_ints("operand_batching_dims", {}),
                         attrs.get_ints("start_indices_batching_dims", {}), attrs.get_ints("start_index_map"),
                         attrs.get_int("index_vector_dim")};
  const std::vector<int64_t>& offset_dims = attrs.get_ints("offset_dims", {});
  const std::vector<int64_t>& slice_sizes = attrs.get_ints("slice_sizes");
  const IndexWalk walk(start_indices, dims, operand.rank());
  const std::vector<int64_t> window = window_dims(operand.rank(), dims);
  if (window.size() != offset_dims.size() || slice_sizes.size() != static_cast<size_t>(operand.rank())) {
    throw RuntimeError("gather dimension numbers do not fit operand " + shape_to_string(operand.shape()));
  }
  const auto result_rank = static_cast<int64_t>(walk.position_shape().size() + offset_dims.size());
  const std::vector<int64_t> batch_result_dims = other_dims(result_rank, offset_dims);
  Shape shape(at(result_rank));
  for (size_t k = 0; k < batch_result_dims.size(); ++k) shape[at(batch_result_dims[k])] = walk.position_shape()[k];
  for (size_t k = 0; k < offset_dims.size(); ++k) shape[at(offset_dims[k])] = slice_sizes[at(window[k])];
  Tensor out = Tensor::uninitialized(operand.dtype(), shape);
  if (out.numel() == 0) return out;

  const std::vector<int64_t> operand_strides = shape_strides(operand.shape());
  const std::vector<int64_t> out_strides = shape_strides(shape);
  const std::vector<int64_t> batch_out_strides = pick(out_strides, batch_result_dims);
  const StridedPlan<2> plan =
      make_strided_plan<2>(pick(slice_sizes, window), {pick(operand_strides, window), pick(out_strides, offset_dims)});
  const int64_t window_elements = shape_numel(plan.shape);
  visit_dtype(operand.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* src = storage<Tag>(operand);
    auto* dst = storage<Tag>(out);
    parallel_ranges(
        walk.positions(), std::max<int64_t>(1, kElementGrain / window_elements), [&](int64_t p0, int64_t p1) {
          std::vector<int64_t> coords, start;
          for (int64_t p = p0; p < p1; ++p) {
            walk.locate(p, coords, start);
            for (size_t d = 0; d < start.size(); ++d) {
              start[d] = std::clamp<int64_t>(start[d], 0, std::max<int64_t>(operand.shape()[d] - slice_sizes[d], 0));
            }
            const int64_t src_base = dot(start, operand_strides);
            const int64_t dst_base = dot(coords, batch_out_strides);
            for_each_strided_run_in(
                plan, 0, window_elements,
                [&](int64_t, const std::array<int64_t, 2>& off, int64_t len, const std::array<int64_t, 2>& step) {
                  for (int64_t i = 0; i < len; ++i) {
                    dst[dst_base + off[1] + i * step[1]] = src[src_base + off[0] + i * step[0]];
                  }
                });
          }
        });
  });
  return out;
}

Tensor scatter(const Tensor& operand, const Tensor& indices, const Tensor& updates, const Attrs& attrs) {
  const IndexedDims dims{attrs.get_ints("inserted_window_dims", {}), attrs.get_ints("input_batching_dims", {}),
                         attrs.get_ints("scatter_indices_batching_dims", {}),
                         attrs.get_ints("scatter_dims_to_operand_dims"), attrs.get_int("index_vector_dim")};
  const std::vector<int64_t>& update_window_dims = attrs.get_ints("update_window_dims", {});
  const Combiner combiner = parse_combiner(attrs.get_string("combiner"));
  if (updates.dtype() != operand.dtype()) throw RuntimeError("updates must have the operand's dtype");
  const IndexWalk walk(indices, dims, operand.rank());
  const std::vector<int64_t> window = window_dims(operand.rank(), dims);
  if (window.size() != update_window_dims.size()) {
    throw RuntimeError("scatter dimension numbers do not fit operand " + shape_to_string(operand.shape()));
  }
  const std::vector<int64_t> scatter_dims = other_dims(updates.rank(), update_window_dims);
  Tensor out = operand.clone();
  // Each operand dim's extent of one update window (1 for inserted and batching dims).
  std::vector<int64_t> extent(at(operand.rank()), 1);
  for (size_t k = 0; k < window.size(); ++k) extent[at(window[k])] = updates.dim(update_window_dims[k]);
  const Shape box = pick(updates.shape(), update_window_dims);
  const int64_t window_elements = shape_numel(box);
  if (window_elements == 0 || walk.positions() == 0) return out;

  const std::vector<int64_t> operand_strides = shape_strides(operand.shape());
  const std::vector<int64_t> update_strides = shape_strides(updates.shape());
  const std::vector<int64_t> scatter_update_strides = pick(update_strides, scatter_dims);
  const StridedPlan<2> plan =
      make_strided_plan<2>(box, {pick(update_strides, update_window_dims), pick(operand_strides, window)});
  visit_dtype(operand.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* src = storage<Tag>(updates);
    auto* dst = storage<Tag>(out);
    std::vector<int64_t> coords, start;
    for (int64_t p = 0; p < walk.positions(); ++p) {
      walk.locate(p, coords, start);
      bool inside = true;
      for (size_t d = 0; d < start.size(); ++d) {
        inside = inside && start[d] >= 0 && start[d] <= operand.shape()[d] - extent[d];
      }
      if (!inside) continue;  // the whole window is skipped (XLA's out-of-bounds rule)
      const int64_t src_base = dot(coords, scatter_update_strides);
      const int64_t dst_base = dot(start, operand_strides);
      for_each_strided_run_in(
          plan, 0, window_elements,
          [&](int64_t, const std::array<int64_t, 2>& off, int64_t len, const std::array<int64_t, 2>& step) {
            for (int64_t i = 0; i < len; ++i) {
              auto& target = dst[dst_base + off[1] + i * step[1]];
              target =
                  Tag::store(combine(combiner, Tag::load(target), Tag::load(src[src_base + off[0] + i * step[0]])));
            }
          });
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
