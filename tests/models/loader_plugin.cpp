// dlopen-based plugin access for the model loader tests.
#include "tests/models/loader_plugin.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <stdexcept>

namespace meshtest::testing {

std::string loader_plugin_path(const std::string& dir) {
  return std::string(MESHTEST_BINARY_DIR) + "/models/" + dir + "/loader.so";
}

namespace {

void* symbol(void* handle, const char* name, const std::string& path) {
  dlerror();
  void* sym = dlsym(handle, name);
  if (sym == nullptr) {
    const char* err = dlerror();
    throw std::runtime_error(path + ": missing symbol " + name + (err ? std::string(": ") + err : ""));
  }
  return sym;
}

}  // namespace

const LoaderPlugin& open_loader_plugin(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, LoaderPlugin> plugins;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plugins.find(dir);
  if (it != plugins.end()) return it->second;
  LoaderPlugin p;
  p.path = loader_plugin_path(dir);
  p.handle = dlopen(p.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (p.handle == nullptr) throw std::runtime_error("dlopen " + p.path + ": " + dlerror());
  p.abi_version = reinterpret_cast<sdk::AbiVersionFn>(symbol(p.handle, sdk::kAbiVersionSymbol, p.path));
  p.create = reinterpret_cast<sdk::CreateLoaderFn>(symbol(p.handle, sdk::kCreateSymbol, p.path));
  p.destroy = reinterpret_cast<sdk::DestroyLoaderFn>(symbol(p.handle, sdk::kDestroySymbol, p.path));
  return plugins.emplace(dir, p).first->second;
}

LoaderPtr make_loader(const std::string& dir) {
  const LoaderPlugin& p = open_loader_plugin(dir);
  if (p.abi_version() != sdk::kLoaderAbiVersion) {
    throw std::runtime_error(p.path + ": ABI version " + std::to_string(p.abi_version()) + ", expected " +
                             std::to_string(sdk::kLoaderAbiVersion));
  }
  sdk::ModelLoader* loader = p.create();
  if (loader == nullptr) throw std::runtime_error(p.path + ": create returned null");
  return LoaderPtr(loader, p.destroy);
}

}  // namespace meshtest::testing
