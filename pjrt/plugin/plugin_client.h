// PJRT_Client, PJRT_Device and PJRT_DeviceDescription: one client over one
// arch profile (ClientOptions::arch), one device per chip of it, and the
// simulated backend every compile and execution of the client goes through.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "runtime/arch/arch_profile.h"
#include "xla/pjrt/c/pjrt_c_api.h"

struct PJRT_DeviceDescription {
  int id = 0;
  std::string kind;          // the chip spec's arch name, e.g. "n150"
  std::string debug_string;  // "meshtest:0"
  std::string to_string;     // "MeshtestDevice(id=0, arch=n150)"
};

struct PJRT_Device {
  PJRT_Client* client = nullptr;
  PJRT_DeviceDescription description;
  // Bytes of the live PJRT buffers on this device (PJRT_Device_MemoryStats bytes_in_use).
  std::atomic<int64_t> bytes_in_use{0};
  // Peak DRAM of this chip in the last execution that used it; -1: none yet.
  std::atomic<int64_t> last_peak_dram_bytes{-1};
};

struct PJRT_Client {
  meshtest::runtime::ArchProfile arch;
  std::string platform_version;  // "meshtest <version> simulated <arch>"
  std::vector<std::unique_ptr<PJRT_Device>> devices;
  std::vector<PJRT_Device*> device_list;  // what PJRT_Client_Devices returns
  std::unique_ptr<meshtest::backend::Backend> backend;
  // The simulated backend compiles and executes one program at a time.
  std::mutex backend_mutex;
};

namespace meshtest::pjrt::plugin {

inline constexpr const char* kPlatformName = "meshtest";

// The device with id `id` of `client`; INVALID_ARGUMENT StatusError naming the ids when none.
PJRT_Device* device_by_id(const PJRT_Client& client, int64_t id);
// INVALID_ARGUMENT StatusError when `client` is null.
PJRT_Client& require_client(PJRT_Client* client, const char* function);

// Binds PJRT_Client_* (but Compile and BufferFromHostBuffer),
// PJRT_Device_* and PJRT_DeviceDescription_*.
void bind_client_api(PJRT_Api& api);

}  // namespace meshtest::pjrt::plugin
