// Known arch names and the default supported archs.
#include "config/arch_names.h"

#include <algorithm>

#include "config/nearest_name.h"

namespace meshtest::config {

const std::vector<std::string>& known_arch_names() {
  static const std::vector<std::string> names = {"n150",        "p150",      "n300",          "n300-llmbox",
                                                 "galaxy-wh-6u", "galaxy-bh", "qb2-blackhole", "lb-blackhole"};
  return names;
}

bool is_known_arch(std::string_view name) {
  const auto& names = known_arch_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<std::string> unknown_arch_message(std::string_view name) {
  if (is_known_arch(name)) return std::nullopt;
  return unknown_name_message("arch", name, known_arch_names());
}

const std::vector<std::string>& default_supported_archs() {
  static const std::vector<std::string> names = {"n150", "p150"};
  return names;
}

}  // namespace meshtest::config
