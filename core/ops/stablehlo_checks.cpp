// The checks the StableHLO structural ops' type rules share (stablehlo_checks.h).
#include "core/ops/stablehlo_checks.h"

#include <algorithm>

#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

const std::vector<std::string_view> kCombiners = {"add", "mul", "max", "min", "and", "or", "xor"};

}  // namespace

AttrSpec required_combiner(std::string_view name, bool with_assign) {
  AttrSpec spec = required_enum(name, {});
  if (with_assign) spec.allowed.push_back("assign");
  spec.allowed.insert(spec.allowed.end(), kCombiners.begin(), kCombiners.end());
  return spec;
}

AttrSpec optional_combiner(std::string_view name, std::string_view fallback) {
  AttrSpec spec = optional_enum(name, {}, fallback);
  spec.allowed = kCombiners;
  return spec;
}

void require_dims_in_range(const std::vector<int64_t>& dims, int64_t bound, const std::string& name) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound) {
      fail(name + "[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is outside [0, " +
           std::to_string(bound) + ")");
    }
  }
}

void require_unique_dims(const std::vector<int64_t>& dims, const std::string& name) {
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (dims[i] == dims[j]) fail(name + " lists dimension " + std::to_string(dims[i]) + " twice");
    }
  }
}

void require_sorted_dims(const std::vector<int64_t>& dims, const std::string& name) {
  if (!std::is_sorted(dims.begin(), dims.end())) fail(name + " must be sorted, got " + shape_to_string(dims));
}

void require_list_size(const std::vector<int64_t>& list, size_t size, const std::string& name) {
  if (list.size() != size) {
    fail(name + " must have " + std::to_string(size) + " entries, got " + std::to_string(list.size()));
  }
}

std::vector<int64_t> concat_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool contains_dim(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

std::vector<int64_t> ints_or_fill(const OpAttrs& attrs, const std::string& name, size_t size, int64_t fill) {
  std::vector<int64_t> list = attrs.has(name) ? attrs.get_ints(name) : std::vector<int64_t>{};
  if (list.empty()) return std::vector<int64_t>(size, fill);
  require_list_size(list, size, name);
  return list;
}

void require_at_least(const std::vector<int64_t>& list, int64_t min, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] < min) {
      fail(name + "[" + std::to_string(i) + "] = " + std::to_string(list[i]) + " must be >= " + std::to_string(min));
    }
  }
}

void require_index_tensor(const TensorType& t, const std::string& what) {
  if (!is_integer(t.dtype) || t.dtype == DType::Bool) {
    fail(what + " must have an integer dtype, got " + type_to_string(t));
  }
}

void require_scalar_of(const TensorType& t, DType dtype, const std::string& what) {
  if (!t.shape.empty()) fail(what + " must be a scalar (rank 0), got " + type_to_string(t));
  if (t.dtype != dtype) {
    fail(what + " must have dtype " + std::string(dtype_name(dtype)) + ", got " + type_to_string(t));
  }
}

void require_combiner_dtype(const std::string& combiner, DType dtype, const std::string& attr) {
  if ((combiner == "and" || combiner == "or" || combiner == "xor") && !is_integer(dtype)) {
    fail(attr + " \"" + combiner + "\" needs integer or bool elements, got " + std::string(dtype_name(dtype)));
  }
}

int64_t window_count(int64_t size, int64_t base_dilation, int64_t low, int64_t high, int64_t window,
                     int64_t window_dilation, int64_t stride) {
  const int64_t dilated = size == 0 ? 0 : checked_add(checked_mul(size - 1, base_dilation), 1);
  const int64_t padded = checked_add(checked_add(low, dilated), high);
  const int64_t dilated_window = window == 0 ? 0 : checked_add(checked_mul(window - 1, window_dilation), 1);
  if (padded < 0) fail("padding leaves a negative extent (" + std::to_string(padded) + ")");
  if (padded == 0 || dilated_window > padded) return 0;
  return (padded - dilated_window) / stride + 1;
}

}  // namespace meshtest::ops
