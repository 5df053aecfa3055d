// Client creation from its options, the device list and the device queries.
#include "pjrt/plugin/plugin_client.h"

#include "backend/simulated_backend.h"
#include "pjrt/plugin/client_options.h"
#include "pjrt/plugin/plugin_errors.h"

#ifndef MESHTEST_VERSION
#define MESHTEST_VERSION "unknown"
#endif

namespace meshtest::pjrt::plugin {

namespace {

std::unique_ptr<PJRT_Client> create_client(const ClientOptions& options) {
  auto client = std::make_unique<PJRT_Client>();
  client->arch = runtime::arch_profile(options.arch);  // ParseError naming the known profiles
  const runtime::ArchProfile& arch = client->arch;
  client->platform_version = std::string("meshtest ") + MESHTEST_VERSION + " simulated " + arch.name;
  for (int id = 0; id < arch.chips; ++id) {
    auto device = std::make_unique<PJRT_Device>();
    device->client = client.get();
    PJRT_DeviceDescription& d = device->description;
    d.id = id;
    d.kind = arch.chip.arch;
    d.debug_string = "meshtest:" + std::to_string(id);
    d.to_string = "MeshtestDevice(id=" + std::to_string(id) + ", arch=" + arch.name + ")";
    client->device_list.push_back(device.get());
    client->devices.push_back(std::move(device));
  }
  client->backend = backend::make_simulated_backend(arch.chip, arch.chips);
  return client;
}

PJRT_Device& require_device(PJRT_Device* device, const char* function) {
  if (device == nullptr) invalid_argument(std::string(function) + ": device is null");
  return *device;
}

PJRT_DeviceDescription& require_description(PJRT_DeviceDescription* description, const char* function) {
  if (description == nullptr) invalid_argument(std::string(function) + ": device_description is null");
  return *description;
}

// ---- PJRT_Client_* ----

PJRT_Error* Client_Create(PJRT_Client_Create_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_Create), args, [&] {
    args->client = create_client(read_client_options(args->create_options, args->num_options)).release();
  });
}

PJRT_Error* Client_Destroy(PJRT_Client_Destroy_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_Destroy), args, [&] { delete args->client; });
}

PJRT_Error* Client_PlatformName(PJRT_Client_PlatformName_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_PlatformName), args, [&] {
    require_client(args->client, "PJRT_Client_PlatformName");
    args->platform_name = kPlatformName;
    args->platform_name_size = std::char_traits<char>::length(kPlatformName);
  });
}

PJRT_Error* Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_ProcessIndex), args, [&] {
    require_client(args->client, "PJRT_Client_ProcessIndex");
    args->process_index = 0;
  });
}

PJRT_Error* Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_PlatformVersion), args, [&] {
    const PJRT_Client& client = require_client(args->client, "PJRT_Client_PlatformVersion");
    args->platform_version = client.platform_version.c_str();
    args->platform_version_size = client.platform_version.size();
  });
}

PJRT_Error* Client_Devices(PJRT_Client_Devices_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_Devices), args, [&] {
    const PJRT_Client& client = require_client(args->client, "PJRT_Client_Devices");
    args->devices = client.device_list.data();
    args->num_devices = client.device_list.size();
  });
}

PJRT_Error* Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_AddressableDevices), args, [&] {
    const PJRT_Client& client = require_client(args->client, "PJRT_Client_AddressableDevices");
    args->addressable_devices = client.device_list.data();
    args->num_addressable_devices = client.device_list.size();
  });
}

PJRT_Error* Client_LookupDevice(PJRT_Client_LookupDevice_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_LookupDevice), args, [&] {
    args->device = device_by_id(require_client(args->client, "PJRT_Client_LookupDevice"), args->id);
  });
}

PJRT_Error* Client_LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_LookupAddressableDevice), args, [&] {
    args->addressable_device =
        device_by_id(require_client(args->client, "PJRT_Client_LookupAddressableDevice"), args->local_hardware_id);
  });
}

// Replica r, partition p -> device r * num_partitions + p.
PJRT_Error* Client_DefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Client_DefaultDeviceAssignment), args, [&] {
    const PJRT_Client& client = require_client(args->client, "PJRT_Client_DefaultDeviceAssignment");
    if (args->num_replicas < 1 || args->num_partitions < 1) {
      invalid_argument("PJRT_Client_DefaultDeviceAssignment: num_replicas and num_partitions must be >= 1");
    }
    const auto needed = static_cast<size_t>(args->num_replicas) * static_cast<size_t>(args->num_partitions);
    if (needed > client.device_list.size()) {
      invalid_argument("program needs " + std::to_string(needed) + " devices, the client has " +
                       std::to_string(client.device_list.size()));
    }
    if (args->default_assignment_size < needed || args->default_assignment == nullptr) {
      invalid_argument("PJRT_Client_DefaultDeviceAssignment: default_assignment holds " +
                       std::to_string(args->default_assignment_size) + " ints, " + std::to_string(needed) +
                       " needed");
    }
    for (size_t i = 0; i < needed; ++i) args->default_assignment[i] = static_cast<int>(i);
  });
}

// ---- PJRT_DeviceDescription_* ----

PJRT_Error* DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_Id), args, [&] {
    args->id = require_description(args->device_description, "PJRT_DeviceDescription_Id").id;
  });
}

PJRT_Error* DeviceDescription_ProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_ProcessIndex), args, [&] {
    require_description(args->device_description, "PJRT_DeviceDescription_ProcessIndex");
    args->process_index = 0;
  });
}

PJRT_Error* DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_Attributes), args, [&] {
    require_description(args->device_description, "PJRT_DeviceDescription_Attributes");
    args->attributes = nullptr;
    args->num_attributes = 0;
  });
}

PJRT_Error* DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_Kind), args, [&] {
    const PJRT_DeviceDescription& d = require_description(args->device_description, "PJRT_DeviceDescription_Kind");
    args->device_kind = d.kind.c_str();
    args->device_kind_size = d.kind.size();
  });
}

PJRT_Error* DeviceDescription_DebugString(PJRT_DeviceDescription_DebugString_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_DebugString), args, [&] {
    const PJRT_DeviceDescription& d =
        require_description(args->device_description, "PJRT_DeviceDescription_DebugString");
    args->debug_string = d.debug_string.c_str();
    args->debug_string_size = d.debug_string.size();
  });
}

PJRT_Error* DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_DeviceDescription_ToString), args, [&] {
    const PJRT_DeviceDescription& d = require_description(args->device_description, "PJRT_DeviceDescription_ToString");
    args->to_string = d.to_string.c_str();
    args->to_string_size = d.to_string.size();
  });
}

// ---- PJRT_Device_* ----

PJRT_Error* Device_GetDescription(PJRT_Device_GetDescription_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Device_GetDescription), args, [&] {
    args->device_description = &require_device(args->device, "PJRT_Device_GetDescription").description;
  });
}

PJRT_Error* Device_IsAddressable(PJRT_Device_IsAddressable_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Device_IsAddressable), args, [&] {
    require_device(args->device, "PJRT_Device_IsAddressable");
    args->is_addressable = true;
  });
}

PJRT_Error* Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Device_LocalHardwareId), args, [&] {
    args->local_hardware_id = require_device(args->device, "PJRT_Device_LocalHardwareId").description.id;
  });
}

// bytes_in_use: the live PJRT buffers on the device; peak_bytes_in_use: the
// chip's peak DRAM in the last execution that used it (not set before one);
// bytes_limit: the chip's DRAM. The rest is not set.
PJRT_Error* Device_MemoryStats(PJRT_Device_MemoryStats_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Device_MemoryStats), args, [&] {
    const PJRT_Device& device = require_device(args->device, "PJRT_Device_MemoryStats");
    const int64_t peak = device.last_peak_dram_bytes.load();
    args->bytes_in_use = device.bytes_in_use.load();
    args->peak_bytes_in_use = peak < 0 ? 0 : peak;
    args->peak_bytes_in_use_is_set = peak >= 0;
    args->num_allocs_is_set = false;
    args->largest_alloc_size_is_set = false;
    args->bytes_limit = device.client->arch.chip.dram_bytes;
    args->bytes_limit_is_set = true;
    args->bytes_reserved_is_set = false;
    args->peak_bytes_reserved_is_set = false;
    args->bytes_reservable_limit_is_set = false;
    args->largest_free_block_bytes_is_set = false;
    args->pool_bytes_is_set = false;
    args->peak_pool_bytes_is_set = false;
    args->peak_allocated_bytes_is_set = false;
  });
}

}  // namespace

PJRT_Device* device_by_id(const PJRT_Client& client, int64_t id) {
  if (id < 0 || id >= static_cast<int64_t>(client.device_list.size())) {
    invalid_argument("no device " + std::to_string(id) + ": the client's devices are 0.." +
                     std::to_string(client.device_list.size() - 1) + " (" + client.arch.name + ")");
  }
  return client.device_list[static_cast<size_t>(id)];
}

PJRT_Client& require_client(PJRT_Client* client, const char* function) {
  if (client == nullptr) invalid_argument(std::string(function) + ": client is null");
  return *client;
}

void bind_client_api(PJRT_Api& api) {
  api.PJRT_Client_Create = Client_Create;
  api.PJRT_Client_Destroy = Client_Destroy;
  api.PJRT_Client_PlatformName = Client_PlatformName;
  api.PJRT_Client_ProcessIndex = Client_ProcessIndex;
  api.PJRT_Client_PlatformVersion = Client_PlatformVersion;
  api.PJRT_Client_Devices = Client_Devices;
  api.PJRT_Client_AddressableDevices = Client_AddressableDevices;
  api.PJRT_Client_LookupDevice = Client_LookupDevice;
  api.PJRT_Client_LookupAddressableDevice = Client_LookupAddressableDevice;
  api.PJRT_Client_DefaultDeviceAssignment = Client_DefaultDeviceAssignment;
  api.PJRT_DeviceDescription_Id = DeviceDescription_Id;
  api.PJRT_DeviceDescription_ProcessIndex = DeviceDescription_ProcessIndex;
  api.PJRT_DeviceDescription_Attributes = DeviceDescription_Attributes;
  api.PJRT_DeviceDescription_Kind = DeviceDescription_Kind;
  api.PJRT_DeviceDescription_DebugString = DeviceDescription_DebugString;
  api.PJRT_DeviceDescription_ToString = DeviceDescription_ToString;
  api.PJRT_Device_GetDescription = Device_GetDescription;
  api.PJRT_Device_IsAddressable = Device_IsAddressable;
  api.PJRT_Device_LocalHardwareId = Device_LocalHardwareId;
  api.PJRT_Device_MemoryStats = Device_MemoryStats;
}

}  // namespace meshtest::pjrt::plugin
