// Backends by name: every backend a run can name is listed in one place
// (runner/pipeline/backends.cpp, no hidden global registration), and the
// runner creates the one a run names (`--backend`, default "simulated").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::backend {

// The name of the backend a run uses unless it names another.
inline constexpr std::string_view kDefaultBackend = "simulated";

// What a backend is created for: the system's chips and the compile cache.
struct BackendConfig {
  runtime::ChipSpec chip;  // the kind of every chip
  int chips = 1;           // how many the system has (a mesh may use up to that many)
  std::string cache_dir;   // empty: no compile cache
  // The pjrt backend's plugin (`--pjrt-plugin`, MESHTEST_PJRT_PLUGIN) and
  // client options (`--pjrt-option NAME=VALUE`, pjrt/named_values.h).
  std::string pjrt_plugin;
  std::vector<std::string> pjrt_options;
};

using BackendFactory = std::function<std::unique_ptr<Backend>(const BackendConfig&)>;

class BackendRegistry {
 public:
  // Adds `name`; throws Error when the name is taken.
  void add(std::string name, BackendFactory factory);
  bool contains(std::string_view name) const;
  // Throws Error naming the unknown backend and listing the known ones.
  void check_known(std::string_view name) const;
  std::vector<std::string> names() const;  // in the order added
  // Throws as check_known for an unknown name.
  std::unique_ptr<Backend> create(std::string_view name, const BackendConfig& config) const;

 private:
  struct Entry {
    std::string name;
    BackendFactory factory;
  };
  std::vector<Entry> entries_;
};

}  // namespace meshtest::backend
