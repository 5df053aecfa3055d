// The frontend registry and the list of importers this build has.
#include "frontends/frontend_registry.h"

#include "core/error.h"

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
  static const FrontendRegistry registry;
  return registry;
}

}  // namespace meshtest::frontends
