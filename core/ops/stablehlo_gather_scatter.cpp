// StableHLO gather and scatter with their full dimension numbers (batching
// dims included): every constraint of the spec's sections, with errors that
// name the attribute and the constraint broken.
#include "core/ops/families.h"
#include "core/ops/stablehlo_checks.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

// The dimension numbers gather and scatter share, under gather's names:
// operand-side dims that are collapsed (gather: collapsed_slice_dims,
// scatter: inserted_window_dims) and batching dims, index-side batching dims,
// the map from index-vector entries to operand dims and index_vector_dim.
struct IndexedDims {
  std::vector<int64_t> collapsed;
  std::vector<int64_t> operand_batching;
  std::vector<int64_t> indices_batching;
  std::vector<int64_t> index_map;
  int64_t index_vector_dim;
  // Attribute names (gather's or scatter's), for messages.
  const char* collapsed_name;
  const char* operand_batching_name;
  const char* indices_batching_name;
  const char* index_map_name;
};

// Checks the constraints on the dimension numbers against the operand and
// the index tensor; returns the index tensor's shape without index_vector_dim
// (the gather batch / scatter dim sizes).
Shape check_indexed_dims(const IndexedDims& dims, const TensorType& operand, const TensorType& indices) {
  const auto operand_rank = static_cast<int64_t>(operand.shape.size());
  const auto indices_rank = static_cast<int64_t>(indices.shape.size());
  require_index_tensor(indices, "the index operand");
  const int64_t ivd = dims.index_vector_dim;
  if (ivd < 0 || ivd > indices_rank) {
    fail("index_vector_dim = " + std::to_string(ivd) + " is outside [0, " + std::to_string(indices_rank) + "]");
  }
  const int64_t vector_size = ivd < indices_rank ? indices.shape[static_cast<size_t>(ivd)] : 1;
  require_list_size(dims.index_map, static_cast<size_t>(vector_size),
                    std::string(dims.index_map_name) + " (the index vector's length)");
  require_dims_in_range(dims.collapsed, operand_rank, dims.collapsed_name);
  require_sorted_dims(dims.collapsed, dims.collapsed_name);
  require_dims_in_range(dims.operand_batching, operand_rank, dims.operand_batching_name);
  require_sorted_dims(dims.operand_batching, dims.operand_batching_name);
  require_unique_dims(concat_dims(dims.collapsed, dims.operand_batching),
                      std::string(dims.collapsed_name) + " + " + dims.operand_batching_name);
  require_unique_dims(dims.indices_batching, dims.indices_batching_name);
  require_dims_in_range(dims.indices_batching, indices_rank, dims.indices_batching_name);
  if (contains_dim(dims.indices_batching, ivd)) {
    fail(std::string(dims.indices_batching_name) + " must not contain index_vector_dim " + std::to_string(ivd));
  }
  require_list_size(dims.indices_batching, dims.operand_batching.size(),
                    std::string(dims.indices_batching_name) + " (as many as " + dims.operand_batching_name + ")");
  for (size_t i = 0; i < dims.operand_batching.size(); ++i) {
    const int64_t a = operand.shape[static_cast<size_t>(dims.operand_batching[i])];
    const int64_t b = indices.shape[static_cast<size_t>(dims.indices_batching[i])];
    if (a != b) {
      fail("batching dimension " + std::to_string(i) + " has size " + std::to_string(a) + " in the operand but " +
           std::to_string(b) + " in the indices");
    }
  }
  require_dims_in_range(dims.index_map, operand_rank, dims.index_map_name);
  require_unique_dims(concat_dims(dims.index_map, dims.operand_batching),
                      std::string(dims.index_map_name) + " + " + dims.operand_batching_name);
  Shape batch_sizes;
  for (int64_t d = 0; d < indices_rank; ++d) {
    if (d != ivd) batch_sizes.push_back(indices.shape[static_cast<size_t>(d)]);
  }
  return batch_sizes;
}

// Dims in [0, rank) outside `a` and `b`, in order.
std::vector<int64_t> dims_outside(int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!contains_dim(a, d) && !contains_dim(b, d)) out.push_back(d);
  }
  return out;
}

void require_window_dim_count(size_t window_dims, size_t listed, const TensorType& operand, const char* attr) {
  if (window_dims != listed) {
    fail("the operand " + type_to_string(operand) + " has " + std::to_string(window_dims) +
         " window dimensions (not collapsed, inserted or batching) but " + attr + " lists " + std::to_string(listed));
  }
}

TensorType gather_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& operand = in[0];
  const IndexedDims dims{attrs.get_ints("collapsed_slice_dims"),
                         attrs.get_ints("operand_batching_dims"),
                         attrs.get_ints("start_indices_batching_dims"),
                         attrs.get_ints("start_index_map"),
                         attrs.get_int("index_vector_dim"),
                         "collapsed_slice_dims",
                         "operand_batching_dims",
                         "start_indices_batching_dims",
                         "start_index_map"};
  const Shape batch_sizes = check_indexed_dims(dims, operand, in[1]);
  const auto slice_sizes = attrs.get_ints("slice_sizes");
  require_list_size(slice_sizes, operand.shape.size(), "slice_sizes (one per operand dimension)");
  for (size_t d = 0; d < slice_sizes.size(); ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.shape[d]) {
      fail("slice_sizes[" + std::to_string(d) + "] = " + std::to_string(slice_sizes[d]) + " is outside [0, " +
           std::to_string(operand.shape[d]) + "]");
    }
  }
  for (int64_t d : concat_dims(dims.collapsed, dims.operand_batching)) {
    if (slice_sizes[static_cast<size_t>(d)] > 1) {
      fail("slice_sizes[" + std::to_string(d) + "] must be 0 or 1 for a collapsed or batching dimension, got " +
           std::to_string(slice_sizes[static_cast<size_t>(d)]));
    }
  }
  const auto offset_dims = attrs.get_ints("offset_dims");
  const auto operand_rank = static_cast<int64_t>(operand.shape.size());
  const std::vector<int64_t> window = dims_outside(operand_rank, dims.collapsed, dims.operand_batching);
  require_window_dim_count(window.size(), offset_dims.size(), operand, "offset_dims");
  const auto result_rank = static_cast<int64_t>(batch_sizes.size() + offset_dims.size());
  require_dims_in_range(offset_dims, result_rank, "offset_dims");
  require_unique_dims(offset_dims, "offset_dims");
  require_sorted_dims(offset_dims, "offset_dims");
  Shape out(static_cast<size_t>(result_rank));
  size_t next_batch = 0, next_offset = 0;
  for (int64_t d = 0; d < result_rank; ++d) {
    out[static_cast<size_t>(d)] = contains_dim(offset_dims, d) ? slice_sizes[static_cast<size_t>(window[next_offset++])]
                                                               : batch_sizes[next_batch++];
  }
  checked_numel(out);
  return {operand.dtype, out};
}

TensorType scatter_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& operand = in[0];
  const TensorType& updates = in[2];
  if (updates.dtype != operand.dtype) {
    fail("updates " + type_to_string(updates) + " must have the operand's dtype " +
         std::string(dtype_name(operand.dtype)));
  }
  require_combiner_dtype(attrs.get_string("combiner"), operand.dtype, "combiner");
  const IndexedDims dims{attrs.get_ints("inserted_window_dims"),
                         attrs.get_ints("input_batching_dims"),
                         attrs.get_ints("scatter_indices_batching_dims"),
                         attrs.get_ints("scatter_dims_to_operand_dims"),
                         attrs.get_int("index_vector_dim"),
                         "inserted_window_dims",
                         "input_batching_dims",
                         "scatter_indices_batching_dims",
                         "scatter_dims_to_operand_dims"};
  const Shape scatter_sizes = check_indexed_dims(dims, operand, in[1]);
  const auto window_dims = attrs.get_ints("update_window_dims");
  const auto updates_rank = static_cast<int64_t>(updates.shape.size());
  require_dims_in_range(window_dims, updates_rank, "update_window_dims");
  require_unique_dims(window_dims, "update_window_dims");
  require_sorted_dims(window_dims, "update_window_dims");
  const auto operand_rank = static_cast<int64_t>(operand.shape.size());
  const std::vector<int64_t> window = dims_outside(operand_rank, dims.collapsed, dims.operand_batching);
  require_window_dim_count(window.size(), window_dims.size(), operand, "update_window_dims");
  if (static_cast<size_t>(updates_rank) != scatter_sizes.size() + window_dims.size()) {
    fail("updates " + type_to_string(updates) + " must have rank " +
         std::to_string(scatter_sizes.size() + window_dims.size()) + " (" + std::to_string(scatter_sizes.size()) +
         " scatter dims + " + std::to_string(window_dims.size()) + " update_window_dims)");
  }
  size_t next_scatter = 0, next_window = 0;
  for (int64_t d = 0; d < updates_rank; ++d) {
    const int64_t size = updates.shape[static_cast<size_t>(d)];
    if (contains_dim(window_dims, d)) {
      const int64_t operand_dim = window[next_window++];
      const int64_t bound = operand.shape[static_cast<size_t>(operand_dim)];
      if (size > bound) {
        fail("updates dimension " + std::to_string(d) + " (" + std::to_string(size) + ") exceeds operand dimension " +
             std::to_string(operand_dim) + " (" + std::to_string(bound) + ")");
      }
    } else if (size != scatter_sizes[next_scatter++]) {
      fail("updates dimension " + std::to_string(d) + " (" + std::to_string(size) +
           ") must equal the matching scatter_indices dimension (" + std::to_string(scatter_sizes[next_scatter - 1]) +
           ")");
    }
  }
  return operand;
}

}  // namespace

std::vector<OpDef> stablehlo_gather_scatter_ops() {
  return {
      {OpKind::Gather,
       "gather",
       OpFamily::Shape,
       2,
       2,
       {optional_ints("offset_dims", {}), optional_ints("collapsed_slice_dims", {}),
        optional_ints("operand_batching_dims", {}), optional_ints("start_indices_batching_dims", {}),
        required_ints("start_index_map"), required_int("index_vector_dim"), required_ints("slice_sizes"),
        optional_int("indices_are_sorted", 0)},
       gather_type,
       "gather(operand, start_indices){offset_dims, collapsed_slice_dims, operand_batching_dims, "
       "start_indices_batching_dims, start_index_map, index_vector_dim, slice_sizes, indices_are_sorted}: "
       "StableHLO gather; each start index is clamped to [0, dim - slice_size]"},
      {OpKind::Scatter,
       "scatter",
       OpFamily::Shape,
       3,
       3,
       {optional_ints("update_window_dims", {}), optional_ints("inserted_window_dims", {}),
        optional_ints("input_batching_dims", {}), optional_ints("scatter_indices_batching_dims", {}),
        required_ints("scatter_dims_to_operand_dims"), required_int("index_vector_dim"),
        required_combiner("combiner", true), optional_int("indices_are_sorted", 0), optional_int("unique_indices", 0)},
       scatter_type,
       "scatter(operand, scatter_indices, updates){update_window_dims, inserted_window_dims, input_batching_dims, "
       "scatter_indices_batching_dims, scatter_dims_to_operand_dims, index_vector_dim, combiner=assign|add|mul|max|"
       "min|and|or|xor}: StableHLO scatter; an update window not wholly inside the operand is skipped; updates "
       "apply in row-major order of updates"},
  };
}

}  // namespace meshtest::ops
