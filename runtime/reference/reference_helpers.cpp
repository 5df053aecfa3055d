// Small helpers shared by the reference kernels (operand checks, attributes).
#include "core/error.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

void require_f32(const Tensor& t, const char* what) {
  if (t.dtype() == DType::F64) {
    throw RuntimeError(std::string(what) + " of dtype f64" + shape_to_string(t.shape()) +
                       " is not supported: this reference kernel computes in f32 only");
  }
  if (t.dtype() != DType::F32) {
    throw RuntimeError(std::string(what) + " must be floating point, got " + std::string(dtype_name(t.dtype())) +
                       shape_to_string(t.shape()));
  }
}

size_t element_bytes(DType dtype) {
  const size_t bytes = dtype_size(dtype);
  if (bytes == 0) throw RuntimeError("dtype " + std::string(dtype_name(dtype)) + " is not element-addressable");
  return bytes;
}

std::vector<int64_t> pair_attr(const Attrs& attrs, const std::string& name, int64_t fallback) {
  std::vector<int64_t> v = attrs.get_ints(name, {fallback, fallback});
  if (v.size() != 2) throw RuntimeError("attribute '" + name + "' must have 2 values");
  return v;
}

}  // namespace meshtest::runtime::reference
