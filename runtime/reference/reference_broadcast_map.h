// Private to runtime/reference: elementwise maps over the numpy broadcast of
// one to three operands of any element types, for the kernels that are
// generic over dtypes (core/dtype_dispatch.h). fn takes the operands' stored
// elements and returns the output's stored element.
#pragma once

#include <array>
#include <cstdint>

#include "core/ops.h"
#include "core/tensor.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference {

// out[i] = fn(x[i]) over every element (same shape).
template <class O, class X, class F>
Tensor map_elements(const Tensor& x, DType out_dtype, F fn) {
  Tensor out(out_dtype, x.shape());
  const X* in = static_cast<const X*>(x.raw_data());
  O* o = static_cast<O*>(out.raw_data());
  parallel_ranges(x.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = fn(in[i]);
  });
  return out;
}

// out = fn(a, b) over the broadcast of a and b.
template <class O, class A, class B, class F>
Tensor map_broadcast(const Tensor& a, const Tensor& b, DType out_dtype, F fn) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out(out_dtype, shape);
  const A* pa = static_cast<const A*>(a.raw_data());
  const B* pb = static_cast<const B*>(b.raw_data());
  O* po = static_cast<O*>(out.raw_data());
  const auto plan =
      make_strided_plan<2>(shape, {broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)});
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, 2>& off, int64_t len, const std::array<int64_t, 2>& step) {
        for (int64_t i = 0; i < len; ++i) po[pos + i] = fn(pa[off[0] + i * step[0]], pb[off[1] + i * step[1]]);
      });
  return out;
}

// out = fn(a, b, c) over the broadcast of a, b and c.
template <class O, class A, class B, class C, class F>
Tensor map_broadcast(const Tensor& a, const Tensor& b, const Tensor& c, DType out_dtype, F fn) {
  const Shape shape = broadcast_shapes(broadcast_shapes(a.shape(), b.shape()), c.shape());
  Tensor out(out_dtype, shape);
  const A* pa = static_cast<const A*>(a.raw_data());
  const B* pb = static_cast<const B*>(b.raw_data());
  const C* pc = static_cast<const C*>(c.raw_data());
  O* po = static_cast<O*>(out.raw_data());
  const auto plan = make_strided_plan<3>(shape, {broadcast_strides(a.shape(), shape),
                                                 broadcast_strides(b.shape(), shape),
                                                 broadcast_strides(c.shape(), shape)});
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, 3>& off, int64_t len, const std::array<int64_t, 3>& step) {
        for (int64_t i = 0; i < len; ++i) {
          po[pos + i] = fn(pa[off[0] + i * step[0]], pb[off[1] + i * step[1]], pc[off[2] + i * step[2]]);
        }
      });
  return out;
}

}  // namespace meshtest::runtime::reference
