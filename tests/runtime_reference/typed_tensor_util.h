// Helpers for tests over every element dtype: a tensor of any dtype from
// double values (converted as the dtype stores them) and its values back as
// doubles, and the attribute values the structural-op tests spell often.
#pragma once

#include <vector>

#include "core/attrs.h"
#include "core/dtype_dispatch.h"
#include "core/tensor.h"

namespace meshtest::runtime::testing {

inline Tensor typed(DType dtype, const Shape& shape, const std::vector<double>& values) {
  Tensor t(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using Tag = decltype(tag);
    auto* p = storage<Tag>(t);
    for (size_t i = 0; i < values.size(); ++i) p[i] = Tag::store(static_cast<typename Tag::compute>(values[i]));
  });
  return t;
}

inline Tensor scalar(DType dtype, double value) { return typed(dtype, {}, {value}); }

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

// 0, 1, 2, ... of `dtype` in `shape`.
inline Tensor counting(DType dtype, const Shape& shape, double start = 0) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return typed(dtype, shape, v);
}

inline AttrValue ints(std::vector<int64_t> v) { return v; }

}  // namespace meshtest::runtime::testing
