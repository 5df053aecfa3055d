// The checks and shape arithmetic the type rules of core/ops/ share.
#include "core/ops/type_checks.h"

#include "core/error.h"

namespace meshtest::ops {

void fail(const std::string& message) { throw CompileError(message); }

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_numel(const Shape& shape) {
  try {
    return shape_numel(shape);
  } catch (const Error& e) {
    fail(e.what());
  }
}

void require_rank(const TensorType& t, int64_t rank, const char* what) {
  if (static_cast<int64_t>(t.shape.size()) != rank) {
    fail(std::string(what) + " must have rank " + std::to_string(rank) + ", got " + type_to_string(t));
  }
}

void require_float(const TensorType& t, const char* what) {
  if (!is_floating(t.dtype)) fail(std::string(what) + " must be floating point, got " + type_to_string(t));
}

void require_same_dtype(const std::vector<TensorType>& in, size_t first, size_t last) {
  for (size_t i = first + 1; i <= last && i < in.size(); ++i) {
    if (in[i].dtype != in[first].dtype) {
      fail("operand dtypes differ: " + type_to_string(in[first]) + " vs " + type_to_string(in[i]));
    }
  }
}

void require_forward_shape(const TensorType& forward, const TensorType& given, const char* what) {
  if (forward.shape != given.shape) {
    fail(std::string(what) + " " + type_to_string(given) + " does not match the forward result " +
         type_to_string(forward));
  }
}

std::vector<int64_t> pair_attr(const OpAttrs& attrs, const std::string& name) {
  auto v = attrs.get_ints(name);
  if (v.size() != 2) fail("attribute '" + name + "' must have 2 values");
  return v;
}

int64_t pooled_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  if (stride <= 0) fail("stride must be positive");
  const int64_t effective = checked_add(checked_mul(dilation, checked_sub(kernel, 1)), 1);
  const int64_t out = checked_add(checked_sub(checked_add(in, checked_mul(2, pad)), effective) / stride, 1);
  if (out <= 0) fail("window larger than padded input (" + std::to_string(in) + ")");
  return out;
}

DType dtype_attr(const std::string& text) {
  try {
    return parse_dtype(text);
  } catch (const ParseError& e) {
    fail(std::string("attribute 'dtype': ") + e.what());
  }
}

Shape shape_attr(const OpAttrs& attrs, const char* name, size_t rank) {
  const Shape shape = attrs.get_ints(name);
  if (shape.size() != rank) fail(std::string("attribute '") + name + "' must have " + std::to_string(rank) + " entries");
  for (int64_t d : shape) {
    if (d < 0) fail(std::string("attribute '") + name + "' has a negative dimension");
  }
  return shape;
}

}  // namespace meshtest::ops
