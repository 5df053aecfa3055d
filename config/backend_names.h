// The backend names test_config files may use (backend_overrides) and
// collection takes (--backend). config/ cannot see the runner's registry
// (runner/pipeline/backends.cpp), so the names are listed here once: every
// backend meshtest has, whether or not this build includes it (a YAML file
// loads the same on every build). tests/runner/backend_names_test.cpp checks
// that the registry names nothing this list lacks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::config {

// The backend a run uses unless it names another (backend::kDefaultBackend).
inline constexpr std::string_view kDefaultBackendName = "simulated";

// Every known backend, in the order they are listed in messages.
const std::vector<std::string>& known_backend_names();
// nullopt for a known backend; otherwise "unknown backend 'x' (did you mean
// 'y'?); known backends: simulated, pjrt".
std::optional<std::string> unknown_backend_message(std::string_view name);

}  // namespace meshtest::config
