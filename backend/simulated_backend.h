// The simulated backend: compiler passes (with the on-disk compile cache)
// and execution on a mesh of SimulatedChips (runtime/mesh); one chip is the
// 1x1 mesh, through the same executable and the same execution path.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/registry.h"

namespace meshtest::backend {

// `config.chips`: how many chips the system has (a mesh may use up to that
// many). `config.cache_dir` empty: no compile cache (only 1x1 programs are
// cached; a mesh program carries its sharding plan, which the cache does not).
std::unique_ptr<Backend> make_simulated_backend(const BackendConfig& config);
// The compile cache's folder when a run names none: MESHTEST_CACHE_DIR, else
// $XDG_CACHE_HOME/meshtest, else ~/.cache/meshtest (generated code is cached there too).
std::string default_cache_dir();

// The simulated compiler's passes (compiler/pass_registry.cpp), in pipeline
// order: what `meshtest coverage` expects some case to fire.
std::vector<std::string> simulated_compiler_passes();

// `chips` chips of kind `chip`, no compile cache.
std::unique_ptr<Backend> make_simulated_backend(const runtime::ChipSpec& chip, int chips);

}  // namespace meshtest::backend
