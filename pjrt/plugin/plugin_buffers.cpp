// Host <-> device transfers and the buffer queries.
#include "pjrt/plugin/plugin_buffers.h"

#include <atomic>
#include <cstring>
#include <memory>

#include "pjrt/buffer_types.h"
#include "pjrt/plugin/plugin_client.h"
#include "pjrt/plugin/plugin_errors.h"
#include "pjrt/plugin/plugin_events.h"

PJRT_Buffer::~PJRT_Buffer() {
  if (!deleted && device != nullptr) device->bytes_in_use -= static_cast<int64_t>(data.nbytes());
}

namespace meshtest::pjrt::plugin {

namespace {

std::string dims_text(const int64_t* dims, size_t count) {
  std::string s = "[";
  for (size_t i = 0; i < count; ++i) s += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// INVALID_ARGUMENT unless `byte_strides` lay out `dims` of `element_size`
// bytes densely in row-major order (dims of size 1 may have any stride).
void check_dense_strides(const int64_t* byte_strides, size_t num_strides, const std::vector<int64_t>& dims,
                         size_t element_size, const char* function) {
  if (num_strides != dims.size()) {
    invalid_argument(std::string(function) + ": " + std::to_string(num_strides) + " byte strides for " +
                     std::to_string(dims.size()) + " dims");
  }
  int64_t dense = static_cast<int64_t>(element_size);
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i] > 1 && byte_strides[i] != dense) {
      invalid_argument(std::string(function) + ": only dense row-major layouts are supported; byte strides " +
                       dims_text(byte_strides, num_strides) + " for dims " + dims_text(dims.data(), dims.size()));
    }
    dense *= dims[i];
  }
}

// INVALID_ARGUMENT unless `layout` (null: the default) is dense row-major.
void check_dense_layout(const PJRT_Buffer_MemoryLayout* layout, const std::vector<int64_t>& dims,
                        size_t element_size, const char* function) {
  if (layout == nullptr) return;
  if (layout->type == PJRT_Buffer_MemoryLayout_Type_Strides) {
    check_dense_strides(layout->strides.byte_strides, layout->strides.num_byte_strides, dims, element_size, function);
    return;
  }
  const PJRT_Buffer_MemoryLayout_Tiled& tiled = layout->tiled;
  bool row_major = tiled.minor_to_major_size == dims.size() && tiled.num_tiles == 0;
  for (size_t i = 0; row_major && i < dims.size(); ++i) {
    row_major = tiled.minor_to_major[i] == static_cast<int64_t>(dims.size() - 1 - i);
  }
  if (!row_major) invalid_argument(std::string(function) + ": only dense row-major layouts are supported");
}

PJRT_Buffer& require_buffer(PJRT_Buffer* buffer, const char* function) {
  if (buffer == nullptr) invalid_argument(std::string(function) + ": buffer is null");
  return *buffer;
}

DType dtype_for(PJRT_Buffer_Type type) {
  const std::optional<DType> dtype = dtype_of(type);
  if (!dtype) {
    invalid_argument("element type " + buffer_type_name(type) +
                     " is not supported (meshtest takes F32, BF16, F16, F64, S8, S16, S32, S64, U8, U16, U32, U64, "
                     "PRED)");
  }
  return *dtype;
}

std::atomic<uint64_t> next_buffer_id{1};

// ---- PJRT_Client_BufferFromHostBuffer ----

PJRT_Error* Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_BufferFromHostBuffer), args, [&] {
    constexpr const char* kFunction = "PJRT_Client_BufferFromHostBuffer";
    PJRT_Client& client = require_client(args->client, kFunction);
    if (args->device == nullptr) {
      if (args->memory != nullptr) {
        throw StatusError(PJRT_Error_Code_UNIMPLEMENTED,
                          "meshtest PJRT plugin: buffers in a PJRT_Memory are not supported; give a device");
      }
      invalid_argument(std::string(kFunction) + ": no device given");
    }
    if (args->device->client != &client) invalid_argument(std::string(kFunction) + ": the device is another client's");
    const DType dtype = dtype_for(args->type);
    if (args->num_dims > 0 && args->dims == nullptr) invalid_argument(std::string(kFunction) + ": dims is null");
    const std::vector<int64_t> dims(args->dims, args->dims + args->num_dims);
    for (int64_t d : dims) {
      if (d < 0) invalid_argument(std::string(kFunction) + ": negative dim in " + dims_text(dims.data(), dims.size()));
    }
    if (args->num_byte_strides > 0) {
      check_dense_strides(args->byte_strides, args->num_byte_strides, dims, dtype_size(dtype), kFunction);
    }
    check_dense_layout(args->device_layout, dims, dtype_size(dtype), kFunction);
    Tensor data = Tensor::uninitialized(dtype, dims);
    if (data.nbytes() > 0) {
      if (args->data == nullptr) invalid_argument(std::string(kFunction) + ": data is null");
      std::memcpy(data.raw_data(), args->data, data.nbytes());
    }
    std::unique_ptr<PJRT_Buffer> buffer(make_buffer(args->device, std::move(data)));
    args->done_with_host_buffer = make_ready_event();
    args->buffer = buffer.release();
  });
}

// ---- PJRT_Buffer_* ----

PJRT_Error* Buffer_Destroy(PJRT_Buffer_Destroy_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_Destroy), args, [&] { delete args->buffer; });
}

PJRT_Error* Buffer_ElementType(PJRT_Buffer_ElementType_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_ElementType), args,
               [&] { args->type = require_buffer(args->buffer, "PJRT_Buffer_ElementType").type; });
}

PJRT_Error* Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_Dimensions), args, [&] {
    const PJRT_Buffer& b = require_buffer(args->buffer, "PJRT_Buffer_Dimensions");
    args->dims = b.dims.data();
    args->num_dims = b.dims.size();
  });
}

PJRT_Error* Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_UnpaddedDimensions), args, [&] {
    const PJRT_Buffer& b = require_buffer(args->buffer, "PJRT_Buffer_UnpaddedDimensions");
    args->unpadded_dims = b.dims.data();
    args->num_dims = b.dims.size();
  });
}

PJRT_Error* Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_DynamicDimensionIndices), args, [&] {
    require_buffer(args->buffer, "PJRT_Buffer_DynamicDimensionIndices");
    args->dynamic_dim_indices = nullptr;
    args->num_dynamic_dims = 0;
  });
}

PJRT_Error* Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_OnDeviceSizeInBytes), args, [&] {
    args->on_device_size_in_bytes = live_buffer(args->buffer, "PJRT_Buffer_OnDeviceSizeInBytes").data.nbytes();
  });
}

PJRT_Error* Buffer_Device(PJRT_Buffer_Device_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_Device), args,
               [&] { args->device = require_buffer(args->buffer, "PJRT_Buffer_Device").device; });
}

PJRT_Error* Buffer_Delete(PJRT_Buffer_Delete_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_Delete), args, [&] {
    PJRT_Buffer& b = require_buffer(args->buffer, "PJRT_Buffer_Delete");
    if (b.deleted) return;
    b.device->bytes_in_use -= static_cast<int64_t>(b.data.nbytes());
    b.data = Tensor();
    b.deleted = true;
  });
}

PJRT_Error* Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_IsDeleted), args,
               [&] { args->is_deleted = require_buffer(args->buffer, "PJRT_Buffer_IsDeleted").deleted; });
}

PJRT_Error* Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_IsOnCpu), args, [&] {
    require_buffer(args->buffer, "PJRT_Buffer_IsOnCpu");
    args->is_on_cpu = false;
  });
}

PJRT_Error* Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_ReadyEvent), args, [&] {
    require_buffer(args->buffer, "PJRT_Buffer_ReadyEvent");
    args->event = make_ready_event();
  });
}

// dst null: dst_size is set to the bytes needed; else copies them (dense row-major).
PJRT_Error* Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_ToHostBuffer), args, [&] {
    constexpr const char* kFunction = "PJRT_Buffer_ToHostBuffer";
    const PJRT_Buffer& b = live_buffer(args->src, kFunction);
    check_dense_layout(args->host_layout, b.dims, dtype_size(b.data.dtype()), kFunction);
    const size_t size = b.data.nbytes();
    if (args->dst == nullptr) {
      args->dst_size = size;
      args->event = nullptr;
      return;
    }
    if (args->dst_size < size) {
      invalid_argument(std::string(kFunction) + ": dst holds " + std::to_string(args->dst_size) + " bytes, " +
                       std::to_string(size) + " needed");
    }
    if (size > 0) std::memcpy(args->dst, b.data.raw_data(), size);
    args->event = make_ready_event();
  });
}

// The copy shares the (immutable) data.
PJRT_Error* Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Buffer_CopyToDevice), args, [&] {
    const PJRT_Buffer& b = live_buffer(args->buffer, "PJRT_Buffer_CopyToDevice");
    if (args->dst_device == nullptr || args->dst_device->client != b.device->client) {
      invalid_argument("PJRT_Buffer_CopyToDevice: dst_device is not a device of the buffer's client");
    }
    args->dst_buffer = make_buffer(args->dst_device, b.data);
  });
}

}  // namespace

PJRT_Buffer* make_buffer(PJRT_Device* device, Tensor data) {
  auto buffer = std::make_unique<PJRT_Buffer>();
  buffer->type = buffer_type_of(data.dtype());
  buffer->dims = data.shape();
  buffer->id = next_buffer_id++;
  buffer->data = std::move(data);
  buffer->device = device;
  device->bytes_in_use += static_cast<int64_t>(buffer->data.nbytes());
  return buffer.release();
}

const PJRT_Buffer& live_buffer(const PJRT_Buffer* buffer, const std::string& what) {
  if (buffer == nullptr) invalid_argument(what + ": buffer is null");
  if (buffer->deleted) invalid_argument(what + ": the buffer has been deleted");
  return *buffer;
}

void bind_buffer_api(PJRT_Api& api) {
  api.PJRT_Client_BufferFromHostBuffer = Client_BufferFromHostBuffer;
  api.PJRT_Buffer_Destroy = Buffer_Destroy;
  api.PJRT_Buffer_ElementType = Buffer_ElementType;
  api.PJRT_Buffer_Dimensions = Buffer_Dimensions;
  api.PJRT_Buffer_UnpaddedDimensions = Buffer_UnpaddedDimensions;
  api.PJRT_Buffer_DynamicDimensionIndices = Buffer_DynamicDimensionIndices;
  api.PJRT_Buffer_OnDeviceSizeInBytes = Buffer_OnDeviceSizeInBytes;
  api.PJRT_Buffer_Device = Buffer_Device;
  api.PJRT_Buffer_Delete = Buffer_Delete;
  api.PJRT_Buffer_IsDeleted = Buffer_IsDeleted;
  api.PJRT_Buffer_IsOnCpu = Buffer_IsOnCpu;
  api.PJRT_Buffer_ReadyEvent = Buffer_ReadyEvent;
  api.PJRT_Buffer_ToHostBuffer = Buffer_ToHostBuffer;
  api.PJRT_Buffer_CopyToDevice = Buffer_CopyToDevice;
}

}  // namespace meshtest::pjrt::plugin
