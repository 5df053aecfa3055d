// Device topk_mask on bf16 rows: selection by repeated arg-max (k is small in
// routing), ties to the lower index; writes bf16 1.0 / 0.0.
#include <vector>

#include "core/error.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

void topk_mask(const Tensor& x, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "topk_mask input");
  require_bf16(out, "topk_mask result");
  const Shape& shape = x.shape();
  const int64_t axis = normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(shape.size()));
  const int64_t k = attrs.get_int("k");
  const int64_t n = shape[static_cast<size_t>(axis)];
  if (k < 1 || k > n) throw RuntimeError("topk_mask: k out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  const uint16_t one = store_bf16(1.0f), zero = store_bf16(0.0f);
  parallel_ranges(outer * inner, 1024, [&](int64_t begin, int64_t end) {
    std::vector<bool> taken(static_cast<size_t>(n));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t base = (row / inner) * n * inner + row % inner;
      std::fill(taken.begin(), taken.end(), false);
      for (int64_t i = 0; i < n; ++i) o[base + i * inner] = zero;
      for (int64_t r = 0; r < k; ++r) {
        int64_t best = -1;
        float best_value = 0.0f;
        for (int64_t i = 0; i < n; ++i) {
          const float v = load_bf16(in[base + i * inner]);
          if (!taken[static_cast<size_t>(i)] && (best < 0 || v > best_value)) best = i, best_value = v;
        }
        taken[static_cast<size_t>(best)] = true;
        o[base + best * inner] = one;
      }
    }
  });
}

}  // namespace meshtest::runtime::device_kernels
