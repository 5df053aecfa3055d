// StableHLO reductions and windows: reduce, reduce_arg (argmax/argmin),
// reduce_window, select_and_scatter, and sort_permutation (the indices that
// sort by several keys), each with a named combiner in place of a region.
#include "core/ops/families.h"
#include "core/ops/stablehlo_checks.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

int64_t rank_of(const TensorType& t) { return static_cast<int64_t>(t.shape.size()); }

TensorType reduce_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  require_scalar_of(in[1], x.dtype, "init value");
  require_combiner_dtype(attrs.get_string("combiner"), x.dtype, "combiner");
  const auto dims = attrs.get_ints("dimensions");
  require_dims_in_range(dims, rank_of(x), "dimensions");
  require_unique_dims(dims, "dimensions");
  Shape out;
  for (int64_t d = 0; d < rank_of(x); ++d) {
    if (!contains_dim(dims, d)) out.push_back(x.shape[static_cast<size_t>(d)]);
  }
  return {x.dtype, out};
}

TensorType reduce_arg_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  const int64_t dim = normalize_axis(attrs.get_int("dimension"), rank_of(x));
  const int64_t size = x.shape[static_cast<size_t>(dim)];
  if (size == 0) fail("reduce_arg over the empty dimension " + std::to_string(dim) + " of " + type_to_string(x));
  const DType index = dtype_attr(attrs.get_string("dtype"));
  if (!is_integer(index) || index == DType::Bool) {
    fail("dtype must be an integer index type, got " + std::string(dtype_name(index)));
  }
  const int bits = dtype_bits(index) - (is_unsigned_integer(index) ? 0 : 1);
  if (bits < 63 && size - 1 > (int64_t{1} << bits) - 1) {
    fail("index dtype " + std::string(dtype_name(index)) + " cannot hold index " + std::to_string(size - 1));
  }
  Shape out = x.shape;
  out.erase(out.begin() + dim);
  return {index, out};
}

// The window attributes of reduce_window (base and window dilations too) or
// select_and_scatter (no dilations), one entry per dimension of `x`.
struct Window {
  std::vector<int64_t> dims, strides, base_dilations, window_dilations, padding;
};

Window window_attrs(const TensorType& x, const OpAttrs& attrs, bool dilations) {
  const size_t rank = x.shape.size();
  Window w;
  w.dims = attrs.get_ints("window_dimensions");
  require_list_size(w.dims, rank, "window_dimensions");
  require_at_least(w.dims, 1, "window_dimensions");
  w.strides = ints_or_fill(attrs, "window_strides", rank, 1);
  require_at_least(w.strides, 1, "window_strides");
  w.base_dilations = dilations ? ints_or_fill(attrs, "base_dilations", rank, 1) : std::vector<int64_t>(rank, 1);
  require_at_least(w.base_dilations, 1, "base_dilations");
  w.window_dilations = dilations ? ints_or_fill(attrs, "window_dilations", rank, 1) : std::vector<int64_t>(rank, 1);
  require_at_least(w.window_dilations, 1, "window_dilations");
  w.padding = ints_or_fill(attrs, "padding", 2 * rank, 0);
  return w;
}

Shape window_counts(const TensorType& x, const Window& w) {
  Shape out(x.shape.size());
  for (size_t d = 0; d < out.size(); ++d) {
    out[d] = window_count(x.shape[d], w.base_dilations[d], w.padding[2 * d], w.padding[2 * d + 1], w.dims[d],
                          w.window_dilations[d], w.strides[d]);
  }
  return out;
}

TensorType reduce_window_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  require_scalar_of(in[1], x.dtype, "init value");
  require_combiner_dtype(attrs.get_string("combiner"), x.dtype, "combiner");
  const Shape out = window_counts(x, window_attrs(x, attrs, true));
  checked_numel(out);
  return {x.dtype, out};
}

TensorType select_and_scatter_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& operand = in[0];
  const TensorType& source = in[1];
  if (source.dtype != operand.dtype) {
    fail("source " + type_to_string(source) + " must have the operand's dtype " +
         std::string(dtype_name(operand.dtype)));
  }
  require_scalar_of(in[2], operand.dtype, "init value");
  require_combiner_dtype(attrs.get_string("combiner"), operand.dtype, "combiner");
  const Window w = window_attrs(operand, attrs, false);
  for (size_t d = 0; d < operand.shape.size(); ++d) {
    if (w.padding[2 * d] < 0 || w.padding[2 * d + 1] < 0) fail("padding must not be negative");
  }
  const Shape windows = window_counts(operand, w);
  if (source.shape != windows) {
    fail("source " + type_to_string(source) + " must have the window counts " + shape_to_string(windows));
  }
  return operand;
}

TensorType sort_permutation_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].shape != in[0].shape) {
      fail("key " + std::to_string(i) + " " + type_to_string(in[i]) + " differs in shape from key 0 " +
           type_to_string(in[0]));
    }
  }
  const int64_t rank = rank_of(in[0]);
  const int64_t dimension = attrs.get_int("dimension");
  if (dimension < -rank || dimension >= rank) {
    fail("dimension " + std::to_string(dimension) + " is outside [" + std::to_string(-rank) + ", " +
         std::to_string(rank) + ")");
  }
  const auto directions = ints_or_fill(attrs, "directions", in.size(), 0);
  for (int64_t d : directions) {
    if (d != 0 && d != 1) fail("directions entries must be 0 (ascending) or 1 (descending)");
  }
  for (const char* flag : {"total_order", "is_stable"}) {
    const int64_t v = attrs.get_int(flag);
    if (v != 0 && v != 1) fail(std::string(flag) + " must be 0 or 1");
  }
  return {DType::I64, in[0].shape};
}

}  // namespace

std::vector<OpDef> stablehlo_reduction_ops() {
  return {
      {OpKind::Reduce,
       "reduce",
       OpFamily::Reduction,
       2,
       2,
       {required_ints("dimensions"), required_combiner("combiner", false)},
       reduce_type,
       "reduce(x, init[]){dimensions, combiner=add|mul|max|min|and|or|xor}: init combined with every element over "
       "the dimensions, which are removed (max/min propagate NaN; bool add/mul are or/and)"},
      {OpKind::ReduceArg,
       "reduce_arg",
       OpFamily::Reduction,
       1,
       1,
       {required_int("dimension"), required_enum("direction", {"max", "min"}), optional_string("dtype", "i64")},
       reduce_arg_type,
       "reduce_arg(x){dimension, direction=max|min, dtype=i64}: index of the first maximum/minimum along dimension "
       "(which is removed); a NaN counts as the maximum for max and the minimum for min (jnp.argmax/argmin)"},
      {OpKind::ReduceWindow,
       "reduce_window",
       OpFamily::Pooling,
       2,
       2,
       {required_ints("window_dimensions"), optional_ints("window_strides", {}), optional_ints("base_dilations", {}),
        optional_ints("window_dilations", {}), optional_ints("padding", {}), required_combiner("combiner", false)},
       reduce_window_type,
       "reduce_window(x, init[]){window_dimensions, window_strides, base_dilations, window_dilations, "
       "padding=[lo0,hi0,...], combiner}: each window of x (dilated and padded with init) reduced with init"},
      {OpKind::SelectAndScatter,
       "select_and_scatter",
       OpFamily::Pooling,
       3,
       3,
       {required_ints("window_dimensions"), optional_ints("window_strides", {}), optional_ints("padding", {}),
        required_enum("select", {"ge", "gt", "le", "lt"}), optional_combiner("combiner", "add")},
       select_and_scatter_type,
       "select_and_scatter(operand, source, init[]){window_dimensions, window_strides, padding, select=ge|gt|le|lt, "
       "combiner=add}: each window's selected element (the first that `select` keeps against every later one; "
       "padding never selected) receives its source value; result = init combined with what each element received"},
      {OpKind::SortPermutation,
       "sort_permutation",
       OpFamily::Routing,
       1,
       -1,
       {required_int("dimension"), optional_ints("directions", {}), optional_int("total_order", 0),
        optional_int("is_stable", 0)},
       sort_permutation_type,
       "sort_permutation(k0, k1, ...){dimension, directions (0 asc, 1 desc per key), total_order, is_stable}: i64 "
       "positions along dimension that sort the keys lexicographically; ties keep input order; floats: -0 == +0 and "
       "NaN above +inf unless total_order (-NaN < -inf < -0 < +0 < +inf < +NaN)"},
  };
}

}  // namespace meshtest::ops
