// StableHLO data-movement ops: broadcast_in_dim, pad, reverse, dynamic_slice,
// dynamic_update_slice and take_along_axis (the constraints of each op's
// section of the StableHLO spec, checked with precise errors).
#include "core/ops/families.h"
#include "core/ops/stablehlo_checks.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

int64_t rank_of(const TensorType& t) { return static_cast<int64_t>(t.shape.size()); }

TensorType broadcast_in_dim_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  const Shape shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) fail("shape " + shape_to_string(shape) + " has a negative dimension");
  }
  const auto dims = attrs.get_ints("broadcast_dimensions");
  require_list_size(dims, x.shape.size(), "broadcast_dimensions (one per operand dimension)");
  require_dims_in_range(dims, static_cast<int64_t>(shape.size()), "broadcast_dimensions");
  require_unique_dims(dims, "broadcast_dimensions");
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t target = shape[static_cast<size_t>(dims[d])];
    if (x.shape[d] != 1 && x.shape[d] != target) {
      fail("operand dimension " + std::to_string(d) + " of " + type_to_string(x) + " is neither 1 nor " +
           std::to_string(target) + " (result dimension " + std::to_string(dims[d]) + ")");
    }
  }
  checked_numel(shape);  // an element count that overflows int64 is an error, not UB later
  return {x.dtype, shape};
}

TensorType pad_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  require_scalar_of(in[1], x.dtype, "padding value");
  const size_t rank = x.shape.size();
  const auto low = attrs.get_ints("low");
  const auto high = attrs.get_ints("high");
  require_list_size(low, rank, "low");
  require_list_size(high, rank, "high");
  const auto interior = ints_or_fill(attrs, "interior", rank, 0);
  require_at_least(interior, 0, "interior");
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape[d];
    const int64_t spread = checked_add(n, checked_mul(n > 0 ? n - 1 : 0, interior[d]));
    out[d] = checked_add(checked_add(low[d], spread), high[d]);
    if (out[d] < 0) {
      fail("padding dimension " + std::to_string(d) + " of " + type_to_string(x) + " gives a negative size " +
           std::to_string(out[d]));
    }
  }
  checked_numel(out);
  return {x.dtype, out};
}

TensorType reverse_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const auto dims = attrs.get_ints("dimensions");
  require_dims_in_range(dims, rank_of(in[0]), "dimensions");
  require_unique_dims(dims, "dimensions");
  return in[0];
}

// The start-index operands in[first..]: one integer scalar per dimension of `x`, all of one type.
void require_start_indices(const std::vector<TensorType>& in, size_t first, const TensorType& x) {
  if (in.size() - first != x.shape.size()) {
    fail("expected " + std::to_string(x.shape.size()) + " start indices (one per dimension of " + type_to_string(x) +
         "), got " + std::to_string(in.size() - first));
  }
  for (size_t i = first; i < in.size(); ++i) {
    const std::string what = "start index " + std::to_string(i - first);
    require_index_tensor(in[i], what);
    require_scalar_of(in[i], in[first].dtype, what);
  }
}

TensorType dynamic_slice_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  require_start_indices(in, 1, x);
  const Shape sizes = attrs.get_ints("slice_sizes");
  require_list_size(sizes, x.shape.size(), "slice_sizes");
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > x.shape[d]) {
      fail("slice_sizes[" + std::to_string(d) + "] = " + std::to_string(sizes[d]) + " is outside [0, " +
           std::to_string(x.shape[d]) + "]");
    }
  }
  return {x.dtype, sizes};
}

TensorType dynamic_update_slice_type(const std::vector<TensorType>& in, const OpAttrs&) {
  const TensorType& x = in[0];
  const TensorType& update = in[1];
  require_same_dtype(in, 0, 1);
  require_rank(update, rank_of(x), "update");
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (update.shape[d] > x.shape[d]) {
      fail("update " + type_to_string(update) + " is larger than the operand " + type_to_string(x) + " in dimension " +
           std::to_string(d));
    }
  }
  require_start_indices(in, 2, x);
  return x;
}

TensorType take_along_axis_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  const TensorType& indices = in[1];
  require_index_tensor(indices, "indices");
  require_rank(indices, rank_of(x), "indices");
  const int64_t axis = normalize_axis(attrs.get_int("axis"), rank_of(x));
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != axis && indices.shape[d] != x.shape[d]) {
      fail("indices " + type_to_string(indices) + " differ from " + type_to_string(x) + " in dimension " +
           std::to_string(d) + " (only the axis " + std::to_string(axis) + " may differ)");
    }
  }
  const auto a = static_cast<size_t>(axis);
  if (indices.shape[a] > 0 && x.shape[a] == 0) fail("cannot take indices along an empty axis of " + type_to_string(x));
  return {x.dtype, indices.shape};
}

}  // namespace

std::vector<OpDef> stablehlo_movement_ops() {
  return {
      {OpKind::BroadcastInDim,
       "broadcast_in_dim",
       OpFamily::Shape,
       1,
       1,
       {required_ints("shape"), required_ints("broadcast_dimensions")},
       broadcast_in_dim_type,
       "broadcast_in_dim(x){shape, broadcast_dimensions}: result[i] = x[j] with j[d] = 0 where x's dim d is 1, "
       "else i[broadcast_dimensions[d]] (StableHLO broadcast_in_dim)"},
      {OpKind::Pad,
       "pad",
       OpFamily::Shape,
       2,
       2,
       {required_ints("low"), required_ints("high"), optional_ints("interior", {})},
       pad_type,
       "pad(x, value[]){low, high, interior=[0..]}: x[j] lands at low + j*(interior+1), the rest is value; "
       "negative low/high crop (StableHLO pad)"},
      {OpKind::Reverse,
       "reverse",
       OpFamily::Shape,
       1,
       1,
       {required_ints("dimensions")},
       reverse_type,
       "reverse(x){dimensions}: x with the order of elements reversed along each listed dimension"},
      {OpKind::DynamicSlice,
       "dynamic_slice",
       OpFamily::Shape,
       1,
       -1,
       {required_ints("slice_sizes")},
       dynamic_slice_type,
       "dynamic_slice(x, start0[], start1[], ...){slice_sizes}: the slice_sizes block of x at the start indices "
       "(integer scalars of one type), each clamped to [0, dim - slice_size]"},
      {OpKind::DynamicUpdateSlice,
       "dynamic_update_slice",
       OpFamily::Shape,
       2,
       -1,
       {},
       dynamic_update_slice_type,
       "dynamic_update_slice(x, update, start0[], ...): x with the block at the start indices (clamped to "
       "[0, dim - update dim]) replaced by update"},
      {OpKind::TakeAlongAxis,
       "take_along_axis",
       OpFamily::Shape,
       2,
       2,
       {required_int("axis")},
       take_along_axis_type,
       "take_along_axis(x, indices){axis}: result[i] = x[i with i[axis] replaced by indices[i]]; indices has x's "
       "rank and shape except along axis, each index in [0, dim) (numpy take_along_axis)"},
  };
}

}  // namespace meshtest::ops
