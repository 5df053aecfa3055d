// The run's backend registry: simulated, plus pjrt where it is built.
#include "runner/pipeline/backends.h"

#include "backend/simulated_backend.h"
#include "config/backend_names.h"
#include "core/error.h"
#ifdef MESHTEST_HAVE_PJRT
#include "pjrt/pjrt_backend.h"
#include "pjrt/platform_probe.h"
#endif

namespace meshtest::runner {

const backend::BackendRegistry& available_backends() {
  static const backend::BackendRegistry registry = [] {
    backend::BackendRegistry r;
    r.add(std::string(backend::kDefaultBackend),
          [](const backend::BackendConfig& config) { return backend::make_simulated_backend(config); });
#ifdef MESHTEST_HAVE_PJRT
    r.add("pjrt", [](const backend::BackendConfig& config) { return pjrt::make_pjrt_backend(config); });
#endif
    return r;
  }();
  return registry;
}

void check_backend(const std::string& scoped_name, const backend::BackendConfig& config) {
  if (auto problem = config::unknown_backend_message(scoped_name)) throw Error(*problem);
  const std::string name(config::backend_base(scoped_name));
#ifndef MESHTEST_HAVE_PJRT
  if (name == "pjrt") {
    throw Error("this meshtest was built without the PJRT C API header: configure with "
                "-DMESHTEST_PJRT_API_DIR=<folder holding xla/pjrt/c/pjrt_c_api.h> (an XLA checkout) and rebuild");
  }
#endif
  available_backends().check_known(name);
#ifdef MESHTEST_HAVE_PJRT
  if (name == "pjrt") pjrt::check_pjrt_config(config);
#endif
}

std::string resolve_backend(const std::string& name, const backend::BackendConfig& config) {
  check_backend(name, config);
  const std::string base(config::backend_base(name));
  if (base != config::kPlatformScopedBackend) return base;
#ifdef MESHTEST_HAVE_PJRT
  const std::string platform = pjrt::probe_platform(config);
  const std::string_view asked = config::backend_platform(name);
  if (!asked.empty() && asked != platform) {
    throw Error("--backend " + name + ", but PJRT plugin " + config.pjrt_plugin + "'s platform is '" + platform + "'");
  }
  return base + ":" + platform;
#else
  return base;  // check_backend has thrown
#endif
}

}  // namespace meshtest::runner
