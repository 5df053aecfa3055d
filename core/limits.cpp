// The per-tensor size limit and the overflow-checked size of a declared tensor.
#include "core/limits.h"

#include <cstdlib>
#include <sstream>

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
  // Elements (bfp8_b: the last two dims padded to whole 32x32 tiles), then
  // bytes (bfp8_b: 17 bytes per 16 values), every product in 128 bits.
  const size_t rank = shape.size();
  unsigned __int128 n = 1;
  bool overflow = false;
  for (size_t i = 0; i < rank && !overflow; ++i) {
    uint64_t d = static_cast<uint64_t>(shape[i]);
    if (dtype == DType::BFP8_B && i + 2 >= rank) d = (d + 31) / 32 * 32;
    n *= d;
    overflow = (n >> 64) != 0;
  }
  if (zero) return 0;
  const uint64_t limit = max_tensor_bytes();
  const unsigned __int128 bytes =
      overflow ? 0 : dtype == DType::BFP8_B ? (n * 17 + 15) / 16 : n * dtype_size(dtype);
  overflow = overflow || (bytes >> 64) != 0;
  if (overflow || static_cast<uint64_t>(bytes) > limit) {
    const std::string size = overflow ? "more than 2^64" : std::to_string(static_cast<uint64_t>(bytes));
    throw Error(what + ": " + type.str() + " needs " + size + " bytes, over the per-tensor limit of " +
                std::to_string(limit) + " bytes (set MESHTEST_MAX_TENSOR_BYTES to raise it)");
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace meshtest
