// Generic code over dtypes: each element-addressable dtype's C++ storage type
// (what one element is in memory) and compute type (what arithmetic on it
// uses), and visit_dtype(), which calls a generic lambda with the tag of a
// runtime dtype.
//
// Usage:
//   Tensor out(x.dtype(), x.shape());
//   visit_dtype(x.dtype(), [&](auto tag) {
//     using Tag = decltype(tag);                  // DTypeTag<DType::...>
//     const auto* in = storage<Tag>(x);           // const Tag::storage*
//     auto* o = storage<Tag>(out);
//     for (int64_t i = 0; i < x.numel(); ++i) {
//       const typename Tag::compute v = Tag::load(in[i]);  // f16/bf16 -> float, bool -> bool
//       o[i] = Tag::store(v + v);                  // rounds back to f16/bf16
//     }
//   });
// Every call of the lambda must return the same type. bfp8_b (a block
// format) is not element-addressable: visit_dtype throws Error for it.
// visit_integer_dtype() visits the integer dtypes only (no bool).
//
// Storage: f32 float, f64 double, bf16 and f16 uint16_t (bits), iN intN_t,
// uN uintN_t, bool uint8_t (0/1). Compute: f32/bf16/f16 float, f64 double,
// integers themselves, bool bool.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor.h"

namespace meshtest {

template <DType D, class Storage, class Compute>
struct DTypeTagBase {
  static constexpr DType dtype = D;
  using storage = Storage;
  using compute = Compute;
  static constexpr bool floating = std::is_floating_point_v<Compute>;
  static Compute load(Storage s) { return static_cast<Compute>(s); }
  static Storage store(Compute v) { return static_cast<Storage>(v); }
};

template <DType D> struct DTypeTag;
template <> struct DTypeTag<DType::F32> : DTypeTagBase<DType::F32, float, float> {};
template <> struct DTypeTag<DType::F64> : DTypeTagBase<DType::F64, double, double> {};
template <> struct DTypeTag<DType::BF16> : DTypeTagBase<DType::BF16, uint16_t, float> {
  static float load(uint16_t s) { return bf16_to_f32(s); }
  static uint16_t store(float v) { return f32_to_bf16(v); }
};
template <> struct DTypeTag<DType::F16> : DTypeTagBase<DType::F16, uint16_t, float> {
  static float load(uint16_t s) { return f16_to_f32(s); }
  static uint16_t store(float v) { return f32_to_f16(v); }
};
template <> struct DTypeTag<DType::I8> : DTypeTagBase<DType::I8, int8_t, int8_t> {};
template <> struct DTypeTag<DType::I16> : DTypeTagBase<DType::I16, int16_t, int16_t> {};
template <> struct DTypeTag<DType::I32> : DTypeTagBase<DType::I32, int32_t, int32_t> {};
template <> struct DTypeTag<DType::I64> : DTypeTagBase<DType::I64, int64_t, int64_t> {};
template <> struct DTypeTag<DType::U8> : DTypeTagBase<DType::U8, uint8_t, uint8_t> {};
template <> struct DTypeTag<DType::U16> : DTypeTagBase<DType::U16, uint16_t, uint16_t> {};
template <> struct DTypeTag<DType::U32> : DTypeTagBase<DType::U32, uint32_t, uint32_t> {};
template <> struct DTypeTag<DType::U64> : DTypeTagBase<DType::U64, uint64_t, uint64_t> {};
template <> struct DTypeTag<DType::Bool> : DTypeTagBase<DType::Bool, uint8_t, bool> {
  static bool load(uint8_t s) { return s != 0; }
  static uint8_t store(bool v) { return v ? 1 : 0; }
};

// Calls fn(DTypeTag<dtype>{}) for the runtime `dtype`.
template <class Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::F32: return fn(DTypeTag<DType::F32>{});
    case DType::F64: return fn(DTypeTag<DType::F64>{});
    case DType::BF16: return fn(DTypeTag<DType::BF16>{});
    case DType::F16: return fn(DTypeTag<DType::F16>{});
    case DType::I8: return fn(DTypeTag<DType::I8>{});
    case DType::I16: return fn(DTypeTag<DType::I16>{});
    case DType::I32: return fn(DTypeTag<DType::I32>{});
    case DType::I64: return fn(DTypeTag<DType::I64>{});
    case DType::U8: return fn(DTypeTag<DType::U8>{});
    case DType::U16: return fn(DTypeTag<DType::U16>{});
    case DType::U32: return fn(DTypeTag<DType::U32>{});
    case DType::U64: return fn(DTypeTag<DType::U64>{});
    case DType::Bool: return fn(DTypeTag<DType::Bool>{});
    case DType::BFP8_B: break;
  }
  throw Error("dtype " + std::string(dtype_name(dtype)) + " has no per-element storage (convert it first)");
}

// Calls fn(DTypeTag<dtype>{}) for an integer `dtype` (i8 .. i64, u8 .. u64;
// not bool); throws Error naming `what` and the dtype for any other.
template <class Fn>
decltype(auto) visit_integer_dtype(DType dtype, const char* what, Fn&& fn) {
  switch (dtype) {
    case DType::I8: return fn(DTypeTag<DType::I8>{});
    case DType::I16: return fn(DTypeTag<DType::I16>{});
    case DType::I32: return fn(DTypeTag<DType::I32>{});
    case DType::I64: return fn(DTypeTag<DType::I64>{});
    case DType::U8: return fn(DTypeTag<DType::U8>{});
    case DType::U16: return fn(DTypeTag<DType::U16>{});
    case DType::U32: return fn(DTypeTag<DType::U32>{});
    case DType::U64: return fn(DTypeTag<DType::U64>{});
    default: break;
  }
  throw Error(std::string(what) + ": dtype " + std::string(dtype_name(dtype)) + " is not an integer type");
}

// Throws Error unless `t` holds dtype `expected`.
inline void check_storage_dtype(const Tensor& t, DType expected) {
  if (t.dtype() != expected) {
    throw Error("tensor of dtype " + std::string(dtype_name(t.dtype())) + " accessed as " +
                std::string(dtype_name(expected)));
  }
}

// The elements of `t` as Tag's storage type; throws Error when t's dtype is not Tag's.
template <class Tag>
typename Tag::storage* storage(Tensor& t) {
  check_storage_dtype(t, Tag::dtype);
  return static_cast<typename Tag::storage*>(t.raw_data());
}
template <class Tag>
const typename Tag::storage* storage(const Tensor& t) {
  check_storage_dtype(t, Tag::dtype);
  return static_cast<const typename Tag::storage*>(t.raw_data());
}

// The unsigned integer type of a storage type's width: the bits of a float.
template <class Storage>
using BitsOf = std::conditional_t<sizeof(Storage) == 1, uint8_t,
                                  std::conditional_t<sizeof(Storage) == 2, uint16_t,
                                                     std::conditional_t<sizeof(Storage) == 4, uint32_t, uint64_t>>>;

}  // namespace meshtest
