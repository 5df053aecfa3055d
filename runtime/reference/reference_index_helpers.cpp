// Helpers the StableHLO structural kernels share: index operands read as
// int64, the held result dtype of computing ops, window geometry.
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

std::vector<int64_t> index_values(const Tensor& t) {
  if (!is_integer(t.dtype())) {
    throw RuntimeError("indices must be integers, got " + std::string(dtype_name(t.dtype())));
  }
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  visit_dtype(t.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    const auto* in = storage<Tag>(t);
    for (size_t i = 0; i < out.size(); ++i) {
      const auto v = Tag::load(in[i]);
      if constexpr (std::is_unsigned_v<decltype(v)> && sizeof(v) == 8) {
        out[i] = v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                                : static_cast<int64_t>(v);
      } else {
        out[i] = static_cast<int64_t>(v);
      }
    }
  });
  return out;
}

DType held_result_dtype(DType declared, DType operand) {
  const bool narrow_float = declared == DType::BF16 || declared == DType::F16 || declared == DType::BFP8_B;
  return narrow_float && operand == DType::F32 ? DType::F32 : declared;
}

std::vector<int64_t> ints_or_fill(const Attrs& attrs, const std::string& name, size_t size, int64_t fill) {
  std::vector<int64_t> list = attrs.get_ints(name, {});
  if (list.empty()) return std::vector<int64_t>(size, fill);
  if (list.size() != size) {
    throw RuntimeError("attribute '" + name + "' must have " + std::to_string(size) + " entries");
  }
  return list;
}

int64_t window_count(int64_t size, int64_t base_dilation, int64_t low, int64_t high, int64_t window,
                     int64_t window_dilation, int64_t stride) {
  const int64_t dilated = size == 0 ? 0 : (size - 1) * base_dilation + 1;
  const int64_t padded = low + dilated + high;
  const int64_t dilated_window = window == 0 ? 0 : (window - 1) * window_dilation + 1;
  if (padded <= 0 || dilated_window > padded) return 0;
  return (padded - dilated_window) / stride + 1;
}

}  // namespace meshtest::runtime::reference
