// Bulk element conversion between dtypes (the per-element rules are in
// core/dtype_convert.h).
#include "core/dtype_convert.h"

namespace meshtest {

void convert_elements(DType from, const void* src, DType to, void* dst, int64_t count) {
  visit_dtype(from, [&](auto from_tag) {
    using From = decltype(from_tag);
    const auto* in = static_cast<const typename From::storage*>(src);
    visit_dtype(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      auto* out = static_cast<typename To::storage*>(dst);
      for (int64_t i = 0; i < count; ++i) out[i] = convert_element<To, From>(in[i]);
    });
  });
}

}  // namespace meshtest
