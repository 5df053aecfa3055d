// The arch names test_config files may use (supported_archs, arch_overrides,
// --arch): the one list of them, so arch profiles can be checked against it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::config {

// Every known arch, in the order they are listed in messages.
const std::vector<std::string>& known_arch_names();
bool is_known_arch(std::string_view name);
// nullopt for a known arch; otherwise "unknown arch 'x' (did you mean 'y'?);
// known archs: ...".
std::optional<std::string> unknown_arch_message(std::string_view name);
// The archs a case supports when its entry has no supported_archs.
const std::vector<std::string>& default_supported_archs();

}  // namespace meshtest::config
