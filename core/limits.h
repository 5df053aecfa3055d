// Limits on what outside input may make meshtest allocate: a declared tensor
// (IR text, a safetensors header, a loader's graph) larger than the
// per-tensor limit is refused before anything is allocated, with a message
// naming the limit and how to raise it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace meshtest {

// Bytes one tensor may take: $MESHTEST_MAX_TENSOR_BYTES when set to a
// positive integer, else kDefaultMaxTensorBytes (16 GiB).
constexpr uint64_t kDefaultMaxTensorBytes = uint64_t{16} << 30;
uint64_t max_tensor_bytes();

// The bytes a `dtype` tensor of `shape` takes; throws Error "<what>: <dtype>[shape]
// needs N bytes, over the per-tensor limit of L bytes (set MESHTEST_MAX_TENSOR_BYTES
// to raise it)" when that exceeds max_tensor_bytes() or does not fit 64 bits, and
// Error "<what>: negative dimension in shape [..]" for a negative dimension.
uint64_t checked_tensor_bytes(DType dtype, const std::vector<int64_t>& shape, const std::string& what);

}  // namespace meshtest
