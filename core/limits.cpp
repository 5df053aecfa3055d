// The per-tensor size limit and the overflow-checked size of a declared tensor.
#include "core/limits.h"

#include <cstdlib>
#include <sstream>

#include "core/bfp8_layout.h"
#include "core/error.h"

namespace meshtest {

uint64_t max_tensor_bytes() {
  const char* env = std::getenv("MESHTEST_MAX_TENSOR_BYTES");
  if (env == nullptr || *env == '\0') return kDefaultMaxTensorBytes;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(env, &end, 10);
  if (*end != '\0' || v == 0) {
    throw Error("MESHTEST_MAX_TENSOR_BYTES='" + std::string(env) + "' is not a positive number of bytes");
  }
  return v;
}

uint64_t checked_tensor_bytes(DType dtype, const std::vector<int64_t>& shape, const std::string& what) {
  std::ostringstream type;
  type << dtype_name(dtype) << '[';
  for (size_t i = 0; i < shape.size(); ++i) type << (i ? "," : "") << shape[i];
  type << ']';
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) throw Error(what + ": negative dimension in " + type.str());
    zero = zero || d == 0;
  }
  // Elements, then bytes, every product in 128 bits. bfp8_b: the bytes of
  // its tiled layout (core/bfp8_layout.h), which pads and adds a shared
  // exponent per 16 values — at most 1088 bytes per value, so it is computed
  // only below 2^50 values, where that cannot overflow.
  unsigned __int128 n = 1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size() && !overflow; ++i) {
    n *= static_cast<uint64_t>(shape[i]);
    overflow = (n >> 64) != 0;
  }
  if (zero) return 0;
  const uint64_t limit = max_tensor_bytes();
  std::string too_many;  // set when the byte count does not fit 64 bits
  unsigned __int128 bytes = 0;
  if (overflow) {
    too_many = "more than 2^64";
  } else if (dtype == DType::BFP8_B) {
    if (n >> 50) too_many = "more than 2^50";
    else bytes = bfp8_b_storage_bytes(shape);
  } else {
    bytes = n * dtype_size(dtype);
    if (bytes >> 64) too_many = "more than 2^64";
  }
  if (!too_many.empty() || static_cast<uint64_t>(bytes) > limit) {
    const std::string size = too_many.empty() ? std::to_string(static_cast<uint64_t>(bytes)) : too_many;
    throw Error(what + ": " + type.str() + " needs " + size + " bytes, over the per-tensor limit of " +
                std::to_string(limit) + " bytes (set MESHTEST_MAX_TENSOR_BYTES to raise it)");
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace meshtest
