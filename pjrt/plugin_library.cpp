// dlopen + GetPjrtApi + version and struct_size checks, once per plugin path.
#include "pjrt/plugin_library.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace meshtest::pjrt {

namespace {

struct Needed {
  size_t offset;
  const char* name;
};

// Every PJRT_Api entry meshtest's client calls (pjrt/pjrt_client.cpp).
#define MESHTEST_PJRT_NEEDED(fn) Needed{offsetof(PJRT_Api, fn), #fn}
constexpr Needed kNeeded[] = {
    MESHTEST_PJRT_NEEDED(PJRT_Error_Destroy),
    MESHTEST_PJRT_NEEDED(PJRT_Error_Message),
    MESHTEST_PJRT_NEEDED(PJRT_Error_GetCode),
    MESHTEST_PJRT_NEEDED(PJRT_Plugin_Initialize),
    MESHTEST_PJRT_NEEDED(PJRT_Event_Destroy),
    MESHTEST_PJRT_NEEDED(PJRT_Event_Await),
    MESHTEST_PJRT_NEEDED(PJRT_Client_Create),
    MESHTEST_PJRT_NEEDED(PJRT_Client_Destroy),
    MESHTEST_PJRT_NEEDED(PJRT_Client_PlatformName),
    MESHTEST_PJRT_NEEDED(PJRT_Client_PlatformVersion),
    MESHTEST_PJRT_NEEDED(PJRT_Client_AddressableDevices),
    MESHTEST_PJRT_NEEDED(PJRT_Client_Compile),
    MESHTEST_PJRT_NEEDED(PJRT_Client_BufferFromHostBuffer),
    MESHTEST_PJRT_NEEDED(PJRT_Device_GetDescription),
    MESHTEST_PJRT_NEEDED(PJRT_DeviceDescription_Id),
    MESHTEST_PJRT_NEEDED(PJRT_DeviceDescription_Kind),
    MESHTEST_PJRT_NEEDED(PJRT_LoadedExecutable_Destroy),
    MESHTEST_PJRT_NEEDED(PJRT_LoadedExecutable_Execute),
    MESHTEST_PJRT_NEEDED(PJRT_Buffer_Destroy),
    MESHTEST_PJRT_NEEDED(PJRT_Buffer_ToHostBuffer),
};
#undef MESHTEST_PJRT_NEEDED

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw PluginLoadError("PJRT plugin " + path + ": " + reason);
}

PluginLibrary load(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    fail(path, std::string("cannot open: ") + (why != nullptr ? why : "dlopen failed"));
  }
  using GetPjrtApi = const PJRT_Api* (*)();
  auto get = reinterpret_cast<GetPjrtApi>(::dlsym(handle, "GetPjrtApi"));
  if (get == nullptr) fail(path, "no symbol GetPjrtApi (not a PJRT plugin)");
  const PJRT_Api* api = get();
  if (api == nullptr) fail(path, "GetPjrtApi returned null");
  PluginLibrary lib{path, api, api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version};
  if (lib.major_version != PJRT_API_MAJOR) {
    fail(path, "PJRT API major version " + std::to_string(lib.major_version) + " (plugin " +
                   std::to_string(lib.major_version) + "." + std::to_string(lib.minor_version) +
                   "), meshtest was built against " + built_api_version() + ": major versions must match");
  }
  for (const Needed& n : kNeeded) {
    const size_t end = n.offset + sizeof(void*);
    if (api->struct_size < end) {
      fail(path, "PJRT_Api struct_size " + std::to_string(api->struct_size) + " is too small for " + n.name +
                     " (needs " + std::to_string(end) + "): the plugin is older than the functions meshtest calls");
    }
    void* fn = nullptr;
    std::memcpy(&fn, reinterpret_cast<const char*>(api) + n.offset, sizeof fn);
    if (fn == nullptr) fail(path, std::string(n.name) + " is not provided (null in PJRT_Api)");
  }
  return lib;
}

}  // namespace

std::string built_api_version() { return std::to_string(PJRT_API_MAJOR) + "." + std::to_string(PJRT_API_MINOR); }

const PluginLibrary& open_plugin(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, PluginLibrary> opened;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = opened.find(path); it != opened.end()) return it->second;
  return opened.emplace(path, load(path)).first->second;
}

}  // namespace meshtest::pjrt
