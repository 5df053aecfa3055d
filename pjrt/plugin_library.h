// Opening a PJRT plugin: dlopen, `GetPjrtApi`, and the checks that let
// meshtest call it safely — the PJRT major version must equal the one
// meshtest was built against, and the plugin's PJRT_Api must be long enough
// (struct_size) and filled for every function meshtest calls. A plugin that
// fails any of them is a PluginLoadError naming the plugin and the reason;
// `meshtest run` checks the plugin this way before any case (exit 2).
// Each process opens a plugin once; it is never closed (plugins keep
// threads and static state).
#pragma once

#include <string>

#include "core/error.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace meshtest::pjrt {

class PluginLoadError : public Error {
 public:
  using Error::Error;
};

struct PluginLibrary {
  std::string path;
  const PJRT_Api* api = nullptr;
  int major_version = 0;
  int minor_version = 0;
};

// The plugin at `path`, opened and checked (once per process; later calls
// return the same). Throws PluginLoadError "PJRT plugin PATH: REASON".
const PluginLibrary& open_plugin(const std::string& path);

// The PJRT C API version meshtest was built against ("0.114").
std::string built_api_version();

}  // namespace meshtest::pjrt
