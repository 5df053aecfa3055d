// Model importers (frontends) by the declarative loader file they read: a
// `loader.yaml` that points at an ONNX model reaches the importer registered
// for "loader.yaml", which turns it into the same sdk::ModelLoader a native
// loader plugin gives, so discovery, the matrix and the pipeline treat both
// alike. Every importer of this build is listed in one place
// (frontends/frontend_registry.cpp); tests build their own registries.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "discovery/loader_sdk.h"

namespace meshtest::frontends {

// Reads the declarative loader file at `path` into a loader; throws Error
// (naming the file) when it cannot.
using ImportFn = std::function<std::shared_ptr<sdk::ModelLoader>(const std::string& path)>;

struct Frontend {
  std::string name;       // "onnx"
  std::string file_name;  // the loader file it reads: "loader.yaml", or "*.ext": any file ending in .ext
  ImportFn import;
};

class FrontendRegistry {
 public:
  // Adds `frontend`; throws Error when another frontend reads the same file name.
  void add(Frontend frontend);
  // The frontend that reads files named `file_name` (by name, else by a
  // "*.ext" pattern), or null.
  const Frontend* find(std::string_view file_name) const;
  const std::vector<Frontend>& frontends() const { return frontends_; }

 private:
  std::vector<Frontend> frontends_;
};

// Whether `pattern` ("loader.yaml", or "*.mtir") matches the file name `name`.
bool file_name_matches(std::string_view pattern, std::string_view name);

// The importers of this build: ONNX (frontends/onnx/) reads loader.yaml, the
// IR text frontend (frontends/mtir/) reads *.mtir, the StableHLO frontend
// (frontends/stablehlo/) reads *.mlir.
const FrontendRegistry& builtin_frontends();

}  // namespace meshtest::frontends
