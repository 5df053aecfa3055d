// Private to runtime/device: the chip's kernels of the StableHLO structural
// ops (broadcast_in_dim .. take_along_axis) and the element access they
// share. As every device kernel: floats are bf16 (f32 math, one rounding per
// result; f32 accumulation in dot_general, convolution and reductions),
// integers and bool exact with two's-complement wrap-around, data movement
// copies elements untouched. Written apart from runtime/reference on purpose.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/attrs.h"
#include "core/error.h"
#include "core/tensor.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

// Element access of one device dtype: `storage` in memory, `math` for arithmetic.
template <class Storage, class Math>
struct DeviceElement {
  using storage = Storage;
  using math = Math;
  static Math load(Storage s) {
    if constexpr (std::is_same_v<Math, bool>)
      return s != 0;
    else
      return static_cast<Math>(s);
  }
  static Storage store(Math v) { return static_cast<Storage>(v); }
};
struct Bf16Element {
  using storage = uint16_t;
  using math = float;
  static float load(uint16_t s) { return load_bf16(s); }
  static uint16_t store(float v) { return store_bf16(v); }
};

// Calls fn(Element{}) for a device dtype: bf16, an integer type or bool.
template <class Fn>
decltype(auto) visit_device_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::BF16:
      return fn(Bf16Element{});
    case DType::I8:
      return fn(DeviceElement<int8_t, int8_t>{});
    case DType::I16:
      return fn(DeviceElement<int16_t, int16_t>{});
    case DType::I32:
      return fn(DeviceElement<int32_t, int32_t>{});
    case DType::I64:
      return fn(DeviceElement<int64_t, int64_t>{});
    case DType::U8:
      return fn(DeviceElement<uint8_t, uint8_t>{});
    case DType::U16:
      return fn(DeviceElement<uint16_t, uint16_t>{});
    case DType::U32:
      return fn(DeviceElement<uint32_t, uint32_t>{});
    case DType::U64:
      return fn(DeviceElement<uint64_t, uint64_t>{});
    case DType::Bool:
      return fn(DeviceElement<uint8_t, bool>{});
    default:
      break;
  }
  throw RuntimeError("the device carries floats as bf16; no kernel for dtype " + std::string(dtype_name(dtype)));
}

template <class E>
typename E::storage* elements(Tensor& t) {
  return static_cast<typename E::storage*>(t.raw_data());
}
template <class E>
const typename E::storage* elements(const Tensor& t) {
  return static_cast<const typename E::storage*>(t.raw_data());
}

// The values of an integer tensor as int64 (u64 past int64's range saturates).
std::vector<int64_t> read_indices(const Tensor& t);

// ---- device_kernels_structural_movement.cpp ----
void broadcast_in_dim(const Tensor& x, const Attrs& attrs, Tensor& out);
void pad(const Tensor& x, const Tensor& value, const Attrs& attrs, Tensor& out);
void reverse(const Tensor& x, const Attrs& attrs, Tensor& out);
void dynamic_slice(const std::vector<const Tensor*>& in, Tensor& out);
void dynamic_update_slice(const std::vector<const Tensor*>& in, Tensor& out);
void gather(const Tensor& operand, const Tensor& indices, const Attrs& attrs, Tensor& out);
void take_along_axis(const Tensor& x, const Tensor& indices, const Attrs& attrs, Tensor& out);

// ---- device_kernels_structural_compute.cpp ----
void scatter(const Tensor& operand, const Tensor& indices, const Tensor& updates, const Attrs& attrs, Tensor& out);
void dot_general(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs, Tensor& out);
void convolution(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs, Tensor& out);
void reduce_combine(const Tensor& x, const Tensor& init, const Attrs& attrs, Tensor& out);
void reduce_arg(const Tensor& x, const Attrs& attrs, Tensor& out);
void reduce_window(const Tensor& x, const Tensor& init, const Attrs& attrs, Tensor& out);
void select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init, const Attrs& attrs,
                        Tensor& out);
void sort_permutation(const std::vector<const Tensor*>& keys, const Attrs& attrs, Tensor& out);

// ---- shared by both files (device_kernels_structural_movement.cpp) ----
// out[i] = src[offset(i)] over out's index space, where offset(i) =
// base + sum(i[d] * strides[d]) (strides 0 broadcast, negative reverse).
void strided_read(const Tensor& src, const std::vector<int64_t>& strides, int64_t base, Tensor& out);
// dst[dst_base + sum(i*dst_strides)] = src[src_base + sum(i*src_strides)] for i over `box`.
void strided_write(const Tensor& src, const Shape& box, const std::vector<int64_t>& src_strides, int64_t src_base,
                   Tensor& dst, const std::vector<int64_t>& dst_strides, int64_t dst_base);
// The list attribute `name`, or `size` copies of `fill` when absent or empty.
std::vector<int64_t> list_or(const Attrs& attrs, const std::string& name, size_t size, int64_t fill);

}  // namespace meshtest::runtime::device_kernels
