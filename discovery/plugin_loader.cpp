// dlopen-based loading of loader plugins with a versioned entry point.
#include "discovery/plugin_loader.h"

#include <dlfcn.h>

#include "core/error.h"

namespace meshtest::discovery {

namespace {

void* symbol(void* handle, const char* name, const std::string& path) {
  dlerror();
  void* sym = dlsym(handle, name);
  if (sym == nullptr) throw Error(path + ": missing entry point '" + name + "' (not a meshtest loader plugin?)");
  return sym;
}

}  // namespace

// Plugins are never dlclose()d: objects created through a plugin (graphs,
// tensors with custom deleters) may outlive the loader object.
std::shared_ptr<sdk::ModelLoader> load_plugin(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    throw Error(path + ": cannot load plugin: " + (err ? err : "unknown dlopen error"));
  }
  auto version = reinterpret_cast<sdk::AbiVersionFn>(symbol(handle, sdk::kAbiVersionSymbol, path));
  const uint32_t found = version();
  if (found != sdk::kLoaderAbiVersion) {
    throw Error(path + ": loader ABI version " + std::to_string(found) + ", this meshtest expects " +
                std::to_string(sdk::kLoaderAbiVersion) + " (rebuild the loader against this SDK)");
  }
  auto create = reinterpret_cast<sdk::CreateLoaderFn>(symbol(handle, sdk::kCreateSymbol, path));
  auto destroy = reinterpret_cast<sdk::DestroyLoaderFn>(symbol(handle, sdk::kDestroySymbol, path));
  sdk::ModelLoader* loader = nullptr;
  try {
    loader = create();
  } catch (const std::exception& e) {
    throw Error(path + ": loader constructor threw: " + e.what());
  } catch (...) {
    throw Error(path + ": loader constructor threw a non-standard exception");
  }
  if (loader == nullptr) throw Error(path + ": " + sdk::kCreateSymbol + " returned null");
  return std::shared_ptr<sdk::ModelLoader>(loader, [destroy](sdk::ModelLoader* l) { destroy(l); });
}

}  // namespace meshtest::discovery
