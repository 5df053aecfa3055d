// Reference sort_permutation: the positions along one dimension that sort
// several keys lexicographically (a stable sort: ties keep input order).
// Each key element becomes an order-preserving uint64 code first, so keys of
// any dtype compare alike: integers by value, floats by IEEE totalOrder
// (total_order=1) or by value with -0 == +0 and every NaN above +inf.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/parallel.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;

// The order-preserving code of a floating value (as double, exactly).
uint64_t float_code(double v, bool total_order) {
  if (!total_order) {
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();  // every NaN alike, above +inf
    if (v == 0) v = 0;                                                // -0 == +0
  }
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
}

// One code per element of `key`; descending keys get complemented codes.
std::vector<uint64_t> key_codes(const Tensor& key, bool total_order, bool descending) {
  std::vector<uint64_t> codes(static_cast<size_t>(key.numel()));
  visit_dtype(key.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    using C = typename Tag::compute;
    const auto* in = storage<Tag>(key);
    for (size_t i = 0; i < codes.size(); ++i) {
      const C v = Tag::load(in[i]);
      if constexpr (std::is_floating_point_v<C>) {
        codes[i] = float_code(static_cast<double>(v), total_order);
      } else if constexpr (std::is_signed_v<C>) {
        codes[i] = static_cast<uint64_t>(static_cast<int64_t>(v)) ^ kSignBit;
      } else {
        codes[i] = static_cast<uint64_t>(v);
      }
    }
  });
  if (descending) {
    for (uint64_t& c : codes) c = ~c;
  }
  return codes;
}

}  // namespace

Tensor sort_permutation(const std::vector<Tensor>& keys, const Attrs& attrs) {
  if (keys.empty()) throw RuntimeError("sort_permutation needs at least one key");
  const Shape& shape = keys[0].shape();
  const int64_t rank = keys[0].rank();
  int64_t dim = attrs.get_int("dimension");
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) throw RuntimeError("sort dimension out of range for " + shape_to_string(shape));
  const std::vector<int64_t> directions = ints_or_fill(attrs, "directions", keys.size(), 0);
  const bool total_order = attrs.get_int("total_order", 0) != 0;
  std::vector<std::vector<uint64_t>> codes;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].shape() != shape) throw RuntimeError("sort keys differ in shape");
    codes.push_back(key_codes(keys[k], total_order, directions[k] != 0));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[static_cast<size_t>(d)];
  for (int64_t d = dim + 1; d < rank; ++d) inner *= shape[static_cast<size_t>(d)];
  const int64_t extent = shape[static_cast<size_t>(dim)];
  Tensor out(DType::I64, shape);
  int64_t* o = out.data<int64_t>();
  parallel_ranges(outer * inner, 1, [&](int64_t s0, int64_t s1) {
    std::vector<int64_t> order(static_cast<size_t>(extent));
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t base = (s / inner) * extent * inner + s % inner;
      auto at = [&](int64_t position) { return static_cast<size_t>(base + position * inner); };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        for (const std::vector<uint64_t>& c : codes) {
          if (c[at(a)] != c[at(b)]) return c[at(a)] < c[at(b)];
        }
        return false;
      });
      for (int64_t i = 0; i < extent; ++i) o[at(i)] = order[static_cast<size_t>(i)];
    }
  });
  return out;
}

}  // namespace meshtest::runtime::reference
