// Scanning model roots for loaders and listing their variants. Native
// loaders are plugins (loader.so); declarative ones (loader.yaml) go to the
// frontend that reads them (frontends/). A loader that cannot be loaded or
// listed, and a declarative loader no frontend reads, becomes a
// LoaderFailure (reported as a result by the runner), never a silent gap.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "discovery/loader_sdk.h"
#include "frontends/frontend_registry.h"

namespace meshtest::discovery {

struct DiscoveredLoader {
  std::string dir;   // loader folder relative to its models root: the id prefix ("resnet/native")
  std::string path;  // the plugin or declarative loader file
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
// File names of declarative loaders (a model file plus variants, inputs and
// shard specs as data), each read by the frontend registered for it. A
// "*.ext" pattern matches any file so named; such a file is a loader of its
// own, its folder the file's path without the extension (op and graph
// tests as IR text, frontends/mtir/mtir_frontend.h; StableHLO programs,
// frontends/stablehlo/stablehlo_frontend.h).
constexpr std::array<const char*, 3> kDeclarativeLoaderFileNames = {"loader.yaml", "*.mtir", "*.mlir"};

// Scans every root recursively for loader plugins and declarative loaders
// (read by `frontends`). A folder name that appears under two roots, or
// holds two loader files, is reported as a failure for the second one.
Discovery discover(const std::vector<std::string>& roots,
                   const frontends::FrontendRegistry& frontends = frontends::builtin_frontends());

}  // namespace meshtest::discovery
