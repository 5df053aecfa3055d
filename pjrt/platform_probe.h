// The platform of a PJRT plugin before any case runs: a run on
// `--backend pjrt` resolves backend_overrides.pjrt:<platform> (config/
// overrides.h) with it. PJRT only names its platform through a client, and a
// client must not be created in the process that forks the workers (a GPU
// plugin's driver state does not survive fork), so a short-lived child
// process creates one, reports PJRT_Client_PlatformName and exits.
#pragma once

#include <string>

#include "backend/registry.h"

namespace meshtest::pjrt {

// How long the child may take to create its client.
inline constexpr int kPlatformProbeSeconds = 300;

// The plugin's platform name in lowercase ("cuda", "meshtest"), as
// `config` would create its client (plugin and options). Throws Error
// "PJRT plugin PATH: creating a client ..." with the plugin's message when
// the client cannot be created, the child crashes (with the signal) or
// takes longer than `timeout_seconds`.
std::string probe_platform(const backend::BackendConfig& config, int timeout_seconds = kPlatformProbeSeconds);

}  // namespace meshtest::pjrt
