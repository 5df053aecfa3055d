// The dtype <-> PJRT_Buffer_Type table.
#include "pjrt/buffer_types.h"

#include <array>
#include <utility>

#include "core/error.h"

namespace meshtest::pjrt {

namespace {

struct Pair {
  DType dtype;
  PJRT_Buffer_Type type;
  const char* name;
};

constexpr std::array<Pair, 13> kTable{{
    {DType::F32, PJRT_Buffer_Type_F32, "F32"},    {DType::BF16, PJRT_Buffer_Type_BF16, "BF16"},
    {DType::F16, PJRT_Buffer_Type_F16, "F16"},    {DType::F64, PJRT_Buffer_Type_F64, "F64"},
    {DType::I8, PJRT_Buffer_Type_S8, "S8"},       {DType::I16, PJRT_Buffer_Type_S16, "S16"},
    {DType::I32, PJRT_Buffer_Type_S32, "S32"},    {DType::I64, PJRT_Buffer_Type_S64, "S64"},
    {DType::U8, PJRT_Buffer_Type_U8, "U8"},       {DType::U16, PJRT_Buffer_Type_U16, "U16"},
    {DType::U32, PJRT_Buffer_Type_U32, "U32"},    {DType::U64, PJRT_Buffer_Type_U64, "U64"},
    {DType::Bool, PJRT_Buffer_Type_PRED, "PRED"},
}};

}  // namespace

PJRT_Buffer_Type buffer_type_of(DType dtype) {
  for (const Pair& p : kTable) {
    if (p.dtype == dtype) return p.type;
  }
  throw Error("dtype " + std::string(dtype_name(dtype)) + " has no PJRT buffer type");
}

std::optional<DType> dtype_of(PJRT_Buffer_Type type) {
  for (const Pair& p : kTable) {
    if (p.type == type) return p.dtype;
  }
  return std::nullopt;
}

std::string buffer_type_name(PJRT_Buffer_Type type) {
  for (const Pair& p : kTable) {
    if (p.type == type) return p.name;
  }
  return "type " + std::to_string(static_cast<int>(type));
}

}  // namespace meshtest::pjrt
