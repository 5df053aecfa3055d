// The backend names test_config files may use (backend_overrides) and
// collection takes (--backend): a backend ("simulated", "pjrt") or, for
// pjrt, a backend scoped to the platform of its plugin ("pjrt:cuda": the
// name PJRT_Client_PlatformName gives, lowercase). config/ cannot see the runner's registry
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

// The backends whose names may carry a platform ("pjrt:<platform>").
inline constexpr std::string_view kPlatformScopedBackend = "pjrt";

// Every known backend, in the order they are listed in messages.
const std::vector<std::string>& known_backend_names();
// nullopt for a known backend or "pjrt:<platform>" (platform: lowercase
// letters, digits, '_' and '-'); otherwise "unknown backend 'x' (did you mean
// 'y'?); known backends: simulated, pjrt, pjrt:<platform>" or what is wrong
// with the platform.
std::optional<std::string> unknown_backend_message(std::string_view name);

// "pjrt:cuda" -> "pjrt"; a name without a platform is itself.
std::string_view backend_base(std::string_view name);
// "pjrt:cuda" -> "cuda"; "" without a platform.
std::string_view backend_platform(std::string_view name);
// The backend_overrides blocks a run on `name` picks, in the order they
// apply: "pjrt:cuda" -> {"pjrt", "pjrt:cuda"}; "simulated" -> {"simulated"}.
std::vector<std::string> backend_override_names(std::string_view name);

}  // namespace meshtest::config
