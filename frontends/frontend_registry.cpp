// The frontend registry and the list of importers this build has.
#include "frontends/frontend_registry.h"

#include "core/error.h"
#include "frontends/onnx/onnx_loader.h"
#include "frontends/mtir/mtir_frontend.h"
#include "frontends/stablehlo/stablehlo_frontend.h"

namespace meshtest::frontends {

void FrontendRegistry::add(Frontend frontend) {
  if (const Frontend* taken = find(frontend.file_name)) {
    throw Error("frontends '" + taken->name + "' and '" + frontend.name + "' both read " + frontend.file_name);
  }
  frontends_.push_back(std::move(frontend));
}

bool file_name_matches(std::string_view pattern, std::string_view name) {
  if (pattern.size() > 1 && pattern[0] == '*') {
    const std::string_view ext = pattern.substr(1);
    return name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext;
  }
  return pattern == name;
}

const Frontend* FrontendRegistry::find(std::string_view file_name) const {
  for (const Frontend& f : frontends_) {
    if (f.file_name == file_name) return &f;
  }
  for (const Frontend& f : frontends_) {
    if (file_name_matches(f.file_name, file_name)) return &f;
  }
  return nullptr;
}

const FrontendRegistry& builtin_frontends() {
  static const FrontendRegistry registry = [] {
    FrontendRegistry r;
    r.add({"onnx", "loader.yaml", onnx_import::load_onnx_loader});
    r.add(mtir_frontend());
    r.add(stablehlo_frontend());
    return r;
  }();
  return registry;
}

}  // namespace meshtest::frontends
