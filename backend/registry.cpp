// The backend registry: backends by name.
#include "backend/registry.h"

#include "core/error.h"

namespace meshtest::backend {

void BackendRegistry::add(std::string name, BackendFactory factory) {
  if (contains(name)) throw Error("backend '" + name + "' is registered twice");
  entries_.push_back({std::move(name), std::move(factory)});
}

bool BackendRegistry::contains(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return true;
  }
  return false;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

void BackendRegistry::check_known(std::string_view name) const {
  if (contains(name)) return;
  std::string known;
  for (const Entry& e : entries_) known += (known.empty() ? "" : ", ") + e.name;
  throw Error("unknown backend '" + std::string(name) + "' (known: " + known + ")");
}

std::unique_ptr<Backend> BackendRegistry::create(std::string_view name, const BackendConfig& config) const {
  check_known(name);
  for (const Entry& e : entries_) {
    if (e.name == name) return e.factory(config);
  }
  return nullptr;  // not reached: check_known threw
}

}  // namespace meshtest::backend
