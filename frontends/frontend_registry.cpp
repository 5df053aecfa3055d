// The frontend registry and the list of importers this build has.
#include "frontends/frontend_registry.h"

#include "core/error.h"
#include "frontends/onnx/onnx_loader.h"

namespace meshtest::frontends {

void FrontendRegistry::add(Frontend frontend) {
  if (const Frontend* taken = find(frontend.file_name)) {
    throw Error("frontends '" + taken->name + "' and '" + frontend.name + "' both read " + frontend.file_name);
  }
  frontends_.push_back(std::move(frontend));
}

const Frontend* FrontendRegistry::find(std::string_view file_name) const {
  for (const Frontend& f : frontends_) {
    if (f.file_name == file_name) return &f;
  }
  return nullptr;
}

const FrontendRegistry& builtin_frontends() {
  static const FrontendRegistry registry = [] {
    FrontendRegistry r;
    r.add({"onnx", "loader.yaml", onnx_import::load_onnx_loader});
    return r;
  }();
  return registry;
}

}  // namespace meshtest::frontends
