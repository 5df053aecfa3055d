// meshtest dtypes <-> PJRT buffer element types, one table for the client
// (pjrt backend) and meshtest's plugin. bfp8_b has no PJRT type.
#pragma once

#include <optional>
#include <string>

#include "core/dtype.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt {

// Throws meshtest::Error for bfp8_b (a storage format with no PJRT type).
PJRT_Buffer_Type buffer_type_of(DType dtype);
// nullopt for a PJRT type meshtest has no dtype for (complex, f8, s4, ...).
std::optional<DType> dtype_of(PJRT_Buffer_Type type);
// "F32", "BF16", ... as PJRT_Buffer_Type_<name>; "type N" for one without a name here.
std::string buffer_type_name(PJRT_Buffer_Type type);

}  // namespace meshtest::pjrt
