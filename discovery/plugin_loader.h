// Loading one loader plugin (loader.so): dlopen, ABI version check, creation
// of its ModelLoader. Every failure is an error message, never a crash.
#pragma once

#include <memory>
#include <string>

#include "discovery/loader_sdk.h"

namespace meshtest::discovery {

// Opens `path`, checks meshtest_loader_abi_version() == kLoaderAbiVersion and
// creates the loader. The returned pointer keeps the library loaded and
// destroys the loader through the plugin's own destroy function.
// Throws meshtest::Error with the path and the reason (dlopen message,
// missing symbol, ABI mismatch, exception from the constructor).
std::shared_ptr<sdk::ModelLoader> load_plugin(const std::string& path);

}  // namespace meshtest::discovery
