// Known backend names (see backend_names.h).
#include "config/backend_names.h"

#include <algorithm>

#include "config/nearest_name.h"

namespace meshtest::config {

const std::vector<std::string>& known_backend_names() {
  static const std::vector<std::string> names = {std::string(kDefaultBackendName), "pjrt"};
  return names;
}

std::optional<std::string> unknown_backend_message(std::string_view name) {
  const auto& names = known_backend_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return std::nullopt;
  return unknown_name_message("backend", name, names);
}

}  // namespace meshtest::config
