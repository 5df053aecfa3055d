// The simulated backend: compiler passes (with the on-disk compile cache)
// and execution on a SimulatedChip, or on a mesh of them (runtime/mesh) when
// the compile options carry a sharding request, behind compiler::Backend.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runner {

// `chips`: how many chips the system has (a mesh may use up to that many).
// `cache_dir` empty: no compile cache (mesh programs are never cached).
std::unique_ptr<compiler::Backend> make_simulated_backend(const runtime::ChipSpec& chip, int chips,
                                                          const std::string& cache_dir);

}  // namespace meshtest::runner
