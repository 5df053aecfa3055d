// The backends `meshtest run --backend NAME` can name: the simulated chip
// (backend/registry.h) and, where the build found the PJRT C API header,
// `pjrt` (pjrt/pjrt_backend.h). Without the header, `--backend pjrt` says
// how to build it.
#pragma once

#include <string>

#include "backend/registry.h"

namespace meshtest::runner {

const backend::BackendRegistry& available_backends();

// Checks a run's backend before any case: its name, and for pjrt the
// plugin and options (pjrt::check_pjrt_config). `name` may carry a platform
// ("pjrt:cuda"); the registry's name is config::backend_base(name). Throws
// Error with the message the run stops with (exit 2).
void check_backend(const std::string& name, const backend::BackendConfig& config);

// check_backend, then the name whose backend_overrides the run's cases take:
// for pjrt, "pjrt:<platform>" with the platform the plugin's client reports
// (pjrt/platform_probe.h); a platform in `name` must be that one (else
// Error: "--backend pjrt:cuda, but PJRT plugin P's platform is 'cpu'"). Any
// other backend is its own name.
std::string resolve_backend(const std::string& name, const backend::BackendConfig& config);

}  // namespace meshtest::runner
