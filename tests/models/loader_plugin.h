// Test helper: opens a built loader plugin (<build>/models/<dir>/loader.so)
// the way discovery does — dlopen, ABI symbols, version — and creates loaders.
// Plugins stay loaded for the whole test process (objects they made may
// outlive any single test).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "discovery/loader_sdk.h"

namespace meshtest::testing {

struct LoaderPlugin {
  std::string path;
  void* handle = nullptr;
  sdk::AbiVersionFn abi_version = nullptr;
  sdk::CreateLoaderFn create = nullptr;
  sdk::DestroyLoaderFn destroy = nullptr;
};

// "<MESHTEST_BINARY_DIR>/models/<dir>/loader.so"
std::string loader_plugin_path(const std::string& dir);

// Opens (once) and resolves the three ABI symbols; throws std::runtime_error
// with dlerror()'s message when the file or a symbol is missing.
const LoaderPlugin& open_loader_plugin(const std::string& dir);

using LoaderPtr = std::unique_ptr<sdk::ModelLoader, sdk::DestroyLoaderFn>;
// A loader from the plugin in `dir`, destroyed through the plugin.
LoaderPtr make_loader(const std::string& dir);

}  // namespace meshtest::testing
