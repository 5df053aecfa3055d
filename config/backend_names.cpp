// Known backend names (see backend_names.h).
#include "config/backend_names.h"

#include <algorithm>

#include "config/nearest_name.h"

namespace meshtest::config {

const std::vector<std::string>& known_backend_names() {
  static const std::vector<std::string> names = {std::string(kDefaultBackendName), "pjrt"};
  return names;
}

std::string_view backend_base(std::string_view name) { return name.substr(0, name.find(':')); }

std::string_view backend_platform(std::string_view name) {
  const size_t colon = name.find(':');
  return colon == std::string_view::npos ? std::string_view() : name.substr(colon + 1);
}

std::optional<std::string> unknown_backend_message(std::string_view name) {
  const auto& names = known_backend_names();
  const std::string_view base = backend_base(name);
  if (std::find(names.begin(), names.end(), base) == names.end()) {
    return unknown_name_message("backend", name, names) + ", " + std::string(kPlatformScopedBackend) + ":<platform>";
  }
  if (base == name) return std::nullopt;
  const std::string quoted = "backend '" + std::string(name) + "': ";
  if (base != kPlatformScopedBackend) {
    return quoted + "only " + std::string(kPlatformScopedBackend) + " is scoped by platform (" +
           std::string(kPlatformScopedBackend) + ":<platform>)";
  }
  const std::string_view platform = backend_platform(name);
  const bool well_formed = !platform.empty() && std::all_of(platform.begin(), platform.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  if (!well_formed) {
    return quoted + "a platform is the plugin's platform name in lowercase letters, digits, '_' or '-' (e.g. " +
           std::string(kPlatformScopedBackend) + ":cuda)";
  }
  return std::nullopt;
}

std::vector<std::string> backend_override_names(std::string_view name) {
  std::vector<std::string> names = {std::string(backend_base(name))};
  if (names.front() != name) names.emplace_back(name);
  return names;
}

}  // namespace meshtest::config
