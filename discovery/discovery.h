// Scanning model roots for loaders and listing their variants. A loader that
// cannot be loaded or listed becomes a LoaderFailure (reported as a result by
// the runner), never a silent gap.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "discovery/loader_sdk.h"

namespace meshtest::discovery {

struct DiscoveredLoader {
  std::string dir;   // loader folder relative to its models root: the id prefix ("resnet/native")
  std::string path;  // the plugin file
  std::shared_ptr<sdk::ModelLoader> loader;
  std::vector<sdk::ModelInfo> variants;  // info() of every variant, in variants() order
};

struct LoaderFailure {
  std::string dir;
  std::string path;
  std::string error;
};

struct Discovery {
  std::vector<DiscoveredLoader> loaders;  // sorted by dir
  std::vector<LoaderFailure> failures;    // sorted by dir
};

// File name of a native loader plugin inside a loader folder.
constexpr const char* kPluginFileName = "loader.so";

// Scans every root recursively for loader plugins. A folder name that appears
// under two roots is reported as a failure for the second one.
Discovery discover(const std::vector<std::string>& roots);

}  // namespace meshtest::discovery
