// Reference topk_mask: 1 at the k largest values along an axis (ties: lower
// index first), 0 elsewhere; f32 in, f32 out, plain loops.
#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

Tensor topk_mask(const Tensor& x, const Attrs& attrs) {
  require_f32(x, "topk_mask input");
  const Shape& shape = x.shape();
  const int64_t axis = normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(shape.size()));
  const int64_t k = attrs.get_int("k");
  const int64_t n = shape[static_cast<size_t>(axis)];
  if (k < 1 || k > n) throw RuntimeError("topk_mask: k out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  Tensor out(DType::F32, shape);
  const float* in = x.data<float>();
  float* o = out.data<float>();
  std::fill(o, o + out.numel(), 0.0f);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t b = 0; b < inner; ++b) {
      const int64_t base = a * n * inner + b;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return in[base + i * inner] > in[base + j * inner]; });
      for (int64_t r = 0; r < k; ++r) o[base + order[static_cast<size_t>(r)] * inner] = 1.0f;
    }
  }
  return out;
}

}  // namespace meshtest::runtime::reference
