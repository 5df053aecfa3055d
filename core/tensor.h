// Host tensor: row-major, a shape, a dtype and shared (immutable-by-convention)
// storage. Copies share storage; clone() makes a deep copy.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/bfp8_layout.h"
#include "core/dtype.h"

namespace meshtest {

using Shape = std::vector<int64_t>;

int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[1,3,224,224]"
// Row-major strides in elements.
std::vector<int64_t> shape_strides(const Shape& shape);

// Maps a C++ element type to its dtype, for data<T>(). bf16 tensors are
// accessed as uint16_t and bool as uint8_t; f16, u8 and u16 share those C++
// types, so they have no entry here: access them (and any dtype) through
// storage<DTypeTag<D>>() in core/dtype_dispatch.h. bfp8_b is raw bytes.
template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::BF16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::F64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::I16; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::U32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::U64; };

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor, storage 64-byte aligned.
  Tensor(DType dtype, Shape shape);
  // Wraps foreign memory (e.g. an mmap); `owner` keeps it alive.
  Tensor(DType dtype, Shape shape, std::shared_ptr<void> owner, void* data);

  // Storage with unspecified contents, for producers that write every
  // element (random fills, conversions): skips the zero-fill pass.
  static Tensor uninitialized(DType dtype, Shape shape);
  static Tensor from_f32(Shape shape, const std::vector<float>& values);
  static Tensor from_i64(Shape shape, const std::vector<int64_t>& values);
  static Tensor scalar_f32(float value) { return from_f32({}, {value}); }

  bool defined() const { return data_ != nullptr || numel() == 0; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_.at(static_cast<size_t>(i < 0 ? i + rank() : i)); }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const {
    return dtype_ == DType::BFP8_B ? bfp8_b_storage_bytes(shape_) : storage_bytes(dtype_, numel());
  }

  // Typed element access; throws if T does not match the dtype.
  template <class T> T* data() {
    check_access(DTypeOf<T>::value);
    return static_cast<T*>(data_);
  }
  template <class T> const T* data() const {
    check_access(DTypeOf<T>::value);
    return static_cast<const T*>(data_);
  }
  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }

  // Value conversion to another dtype with StableHLO `convert` semantics
  // (core/dtype_convert.h): floats round to nearest even, float -> int
  // truncates toward zero and saturates (NaN -> 0), int -> int wraps (two's
  // complement), x -> bool is x != 0, bool -> x is 0/1. Returns a new tensor;
  // same dtype returns *this.
  Tensor to(DType dtype) const;
  // All elements as f32 (converting as needed).
  std::vector<float> to_f32_vector() const;
  // f64 value of element `i` in row-major order (any dtype but bfp8_b).
  double element_as_double(int64_t i) const;
  // Same data, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  Tensor clone() const;

 private:
  void check_access(DType requested) const;

  DType dtype_ = DType::F32;
  Shape shape_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

}  // namespace meshtest
