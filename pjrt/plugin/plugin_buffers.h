// PJRT_Buffer: a dense row-major meshtest Tensor on one device. Host buffers
// are always copied in (PJRT_Client_BufferFromHostBuffer; element types F32,
// BF16, F16, F64, S8, S16, S32, S64, U8, U16, U32, U64, PRED), read back with
// PJRT_Buffer_ToHostBuffer; every transfer event is born ready. A buffer's
// bytes count in its device's PJRT_Device_MemoryStats bytes_in_use until it
// is deleted or destroyed.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "xla/pjrt/c/pjrt_c_api.h"

struct PJRT_Buffer {
  PJRT_Device* device = nullptr;
  meshtest::Tensor data;  // in the meshtest dtype of `type`; released by PJRT_Buffer_Delete
  PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
  std::vector<int64_t> dims;
  uint64_t id = 0;  // unique in the process: which data an executable last compiled with
  bool deleted = false;

  PJRT_Buffer() = default;
  PJRT_Buffer(const PJRT_Buffer&) = delete;
  PJRT_Buffer& operator=(const PJRT_Buffer&) = delete;
  ~PJRT_Buffer();
};

namespace meshtest::pjrt::plugin {

// A new buffer holding `data` (shared, not copied) on `device`. Throws for a
// dtype with no PJRT type (bfp8_b).
PJRT_Buffer* make_buffer(PJRT_Device* device, Tensor data);
// The data of a live buffer; INVALID_ARGUMENT StatusError naming `what` when
// it is null or deleted.
const PJRT_Buffer& live_buffer(const PJRT_Buffer* buffer, const std::string& what);

// Binds PJRT_Client_BufferFromHostBuffer and PJRT_Buffer_*.
void bind_buffer_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
