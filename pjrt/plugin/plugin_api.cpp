// The PJRT_Api table: version, the plugin functions, and every object's
// functions bound from its own file; GetPjrtApi returns it.
#include <cstring>

#include "pjrt/plugin/meshtest_pjrt_plugin.h"
#include "pjrt/plugin/plugin_buffers.h"
#include "pjrt/plugin/plugin_client.h"
#include "pjrt/plugin/plugin_errors.h"
#include "pjrt/plugin/plugin_events.h"
#include "pjrt/plugin/plugin_executable.h"
#include "pjrt/plugin/plugin_execute.h"
#include "pjrt/plugin/plugin_stubs.h"

#ifndef MESHTEST_VERSION
#define MESHTEST_VERSION "unknown"
#endif

namespace meshtest::pjrt::plugin {

namespace {

PJRT_Error* Plugin_Initialize(PJRT_Plugin_Initialize_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Plugin_Initialize), args, [] {});
}

PJRT_Error* Plugin_Attributes(PJRT_Plugin_Attributes_Args* args) {
  return guard(MESHTEST_PJRT_ENTRY(PJRT_Plugin_Attributes), args, [&] {
    static const PJRT_NamedValue attributes[] = {{
        .struct_size = PJRT_NamedValue_STRUCT_SIZE,
        .extension_start = nullptr,
        .name = "meshtest_version",
        .name_size = std::strlen("meshtest_version"),
        .type = PJRT_NamedValue_kString,
        .string_value = MESHTEST_VERSION,
        .value_size = std::strlen(MESHTEST_VERSION),
    }};
    args->attributes = attributes;
    args->num_attributes = sizeof(attributes) / sizeof(attributes[0]);
  });
}

PJRT_Api make_api() {
  PJRT_Api api{};
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = nullptr;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
  api.PJRT_Plugin_Initialize = Plugin_Initialize;
  api.PJRT_Plugin_Attributes = Plugin_Attributes;
  bind_error_api(api);
  bind_event_api(api);
  bind_client_api(api);
  bind_buffer_api(api);
  bind_executable_api(api);
  bind_execute_api(api);
  bind_unimplemented_api(api);
  return api;
}

}  // namespace

const PJRT_Api* plugin_api() {
  static const PJRT_Api api = make_api();
  return &api;
}

}  // namespace meshtest::pjrt::plugin

const PJRT_Api* GetPjrtApi() { return meshtest::pjrt::plugin::plugin_api(); }
