// Reference reductions with a named combiner (reduce), argmax/argmin
// (reduce_arg) and the windowed ops (reduce_window, select_and_scatter) for
// any dtype. Values combine in the dtype's compute type: reduce and
// reduce_window round once at the result; select_and_scatter's scatter
// rounds each step (its updates land one after another).
#include <algorithm>
#include <cmath>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/parallel.h"
#include "runtime/reference/reference_combiners.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

namespace {

size_t at(int64_t d) { return static_cast<size_t>(d); }

// Multi-index of row-major position `linear` in `shape`.
void unravel(int64_t linear, const Shape& shape, std::vector<int64_t>& index) {
  index.resize(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}

// The windows of reduce_window / select_and_scatter over an operand: which
// operand element (if any) sits at position `w` of the window of output `o`.
class Windows {
 public:
  Windows(const Shape& operand, const Attrs& attrs, bool dilations) : operand_(operand) {
    const size_t rank = operand.size();
    dims_ = attrs.get_ints("window_dimensions");
    if (dims_.size() != rank) throw RuntimeError("window_dimensions must have one entry per dimension");
    strides_ = ints_or_fill(attrs, "window_strides", rank, 1);
    base_dilations_ = dilations ? ints_or_fill(attrs, "base_dilations", rank, 1) : std::vector<int64_t>(rank, 1);
    window_dilations_ = dilations ? ints_or_fill(attrs, "window_dilations", rank, 1) : std::vector<int64_t>(rank, 1);
    padding_ = ints_or_fill(attrs, "padding", 2 * rank, 0);
    operand_strides_ = shape_strides(operand);
    result_.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      result_[d] = window_count(operand[d], base_dilations_[d], padding_[2 * d], padding_[2 * d + 1], dims_[d],
                                window_dilations_[d], strides_[d]);
    }
  }

  const Shape& result_shape() const { return result_; }
  int64_t window_elements() const { return shape_numel(dims_); }

  // Operand offset of window position `w` (row-major in the window) of the
  // window at `out` (a result multi-index), or -1 for padding and dilation holes.
  int64_t operand_offset(const std::vector<int64_t>& out, int64_t w) const {
    int64_t offset = 0;
    bool hits = true;
    for (size_t d = dims_.size(); d-- > 0;) {
      const int64_t k = w % dims_[d];
      w /= dims_[d];
      const int64_t dilated = out[d] * strides_[d] + k * window_dilations_[d] - padding_[2 * d];
      const int64_t index = dilated / base_dilations_[d];
      hits = hits && dilated >= 0 && dilated % base_dilations_[d] == 0 && index < operand_[d];
      offset += index * operand_strides_[d];
    }
    return hits ? offset : -1;
  }

 private:
  Shape operand_;
  std::vector<int64_t> dims_, strides_, base_dilations_, window_dilations_, padding_, operand_strides_;
  Shape result_;
};

void require_scalar_like(const Tensor& value, const Tensor& x, const char* what) {
  if (value.numel() != 1 || value.dtype() != x.dtype()) {
    throw RuntimeError(std::string(what) + " must be a scalar of the operand's dtype");
  }
}

}  // namespace

Tensor reduce_with(const Tensor& x, const Tensor& init, const Attrs& attrs) {
  require_scalar_like(init, x, "init value");
  const Combiner combiner = parse_combiner(attrs.get_string("combiner"));
  const std::vector<int64_t>& dims = attrs.get_ints("dimensions");
  std::vector<int64_t> kept, order;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  }
  order = kept;
  order.insert(order.end(), dims.begin(), dims.end());
  // x as [kept..., reduced...], contiguous: each output reduces one row.
  const std::vector<int64_t> strides = shape_strides(x.shape());
  Shape shape, permuted_shape;
  std::vector<int64_t> permuted_strides;
  for (int64_t d : order) {
    permuted_shape.push_back(x.dim(d));
    permuted_strides.push_back(strides[at(d)]);
  }
  for (int64_t d : kept) shape.push_back(x.dim(d));
  const Tensor rows = copy_strided(x, permuted_shape, permuted_strides, 0);
  Tensor out = Tensor::uninitialized(x.dtype(), shape);
  const int64_t count = out.numel();
  const int64_t row = count == 0 ? 0 : x.numel() / count;
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* in = storage<Tag>(rows);
    auto* o = storage<Tag>(out);
    const auto start = Tag::load(storage<Tag>(init)[0]);
    parallel_ranges(count, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(row, 1)),
                    [&](int64_t i0, int64_t i1) {
                      for (int64_t i = i0; i < i1; ++i) {
                        auto acc = start;
                        for (int64_t r = 0; r < row; ++r) acc = combine(combiner, acc, Tag::load(in[i * row + r]));
                        o[i] = Tag::store(acc);
                      }
                    });
  });
  return out;
}

Tensor reduce_arg(const Tensor& x, const Attrs& attrs) {
  int64_t dim = attrs.get_int("dimension");
  if (dim < 0) dim += x.rank();
  if (dim < 0 || dim >= x.rank() || x.dim(dim) == 0) {
    throw RuntimeError("reduce_arg needs a non-empty dimension of " + shape_to_string(x.shape()));
  }
  const bool want_max = attrs.get_string("direction") == "max";
  const DType index_dtype = parse_dtype(attrs.get_string("dtype", "i64"));
  Shape shape = x.shape();
  shape.erase(shape.begin() + dim);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.dim(d);
  for (int64_t d = dim + 1; d < x.rank(); ++d) inner *= x.dim(d);
  const int64_t extent = x.dim(dim);
  std::vector<int64_t> best(at(outer * inner), 0);
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    using C = typename Tag::compute;
    const auto* in = storage<Tag>(x);
    // v replaces the current best: strictly better, or the first NaN (a NaN is
    // the maximum for max and the minimum for min); ties keep the first index.
    auto better = [want_max](C v, C current) {
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(current)) return false;
        if (std::isnan(v)) return true;
      }
      return want_max ? v > current : v < current;
    };
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t& chosen = best[at(o * inner + i)];
        for (int64_t k = 1; k < extent; ++k) {
          if (better(Tag::load(in[(o * extent + k) * inner + i]), Tag::load(in[(o * extent + chosen) * inner + i]))) {
            chosen = k;
          }
        }
      }
    }
  });
  Tensor out(index_dtype, shape);
  visit_dtype(index_dtype, [&](auto tag) {
    using Tag = decltype(tag);
    auto* o = storage<Tag>(out);
    for (size_t i = 0; i < best.size(); ++i) o[i] = Tag::store(static_cast<typename Tag::compute>(best[i]));
  });
  return out;
}

Tensor reduce_window(const Tensor& x, const Tensor& init, const Attrs& attrs) {
  require_scalar_like(init, x, "init value");
  const Combiner combiner = parse_combiner(attrs.get_string("combiner"));
  const Windows windows(x.shape(), attrs, true);
  Tensor out = Tensor::uninitialized(x.dtype(), windows.result_shape());
  visit_dtype(x.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* in = storage<Tag>(x);
    auto* o = storage<Tag>(out);
    const auto start = Tag::load(storage<Tag>(init)[0]);
    parallel_ranges(out.numel(), 256, [&](int64_t e0, int64_t e1) {
      std::vector<int64_t> index;
      for (int64_t e = e0; e < e1; ++e) {
        unravel(e, windows.result_shape(), index);
        auto acc = start;
        for (int64_t w = 0; w < windows.window_elements(); ++w) {
          const int64_t offset = windows.operand_offset(index, w);
          // Padding and base-dilation holes hold the init value (StableHLO's padded input).
          acc = combine(combiner, acc, offset < 0 ? start : Tag::load(in[offset]));
        }
        o[e] = Tag::store(acc);
      }
    });
  });
  return out;
}

Tensor select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init, const Attrs& attrs) {
  require_scalar_like(init, operand, "init value");
  if (source.dtype() != operand.dtype()) throw RuntimeError("source must have the operand's dtype");
  const Combiner combiner = parse_combiner(attrs.get_string("combiner", "add"));
  const std::string select = attrs.get_string("select");
  const Windows windows(operand.shape(), attrs, false);
  if (windows.result_shape() != source.shape()) {
    throw RuntimeError("source " + shape_to_string(source.shape()) + " does not match the window counts " +
                       shape_to_string(windows.result_shape()));
  }
  Tensor out = filled(init, operand.shape());
  visit_dtype(operand.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    using C = typename Tag::compute;
    const auto* in = storage<Tag>(operand);
    const auto* src = storage<Tag>(source);
    auto* o = storage<Tag>(out);
    // select(current, candidate): true keeps the current selection.
    auto keeps = [&select](C current, C candidate) {
      if (select == "ge") return current >= candidate;
      if (select == "gt") return current > candidate;
      if (select == "le") return current <= candidate;
      return current < candidate;
    };
    std::vector<int64_t> index;
    for (int64_t s = 0; s < source.numel(); ++s) {
      unravel(s, windows.result_shape(), index);
      int64_t chosen = -1;
      for (int64_t w = 0; w < windows.window_elements(); ++w) {
        const int64_t offset = windows.operand_offset(index, w);
        if (offset < 0) continue;
        if (chosen < 0 || !keeps(Tag::load(in[chosen]), Tag::load(in[offset]))) chosen = offset;
      }
      if (chosen >= 0) o[chosen] = Tag::store(combine(combiner, Tag::load(o[chosen]), Tag::load(src[s])));
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
