// The simulated backend: compiler passes (with the on-disk compile cache)
// and execution on a SimulatedChip, behind compiler::Backend.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runner {

// `cache_dir` empty: no compile cache.
std::unique_ptr<compiler::Backend> make_simulated_backend(const runtime::ChipSpec& chip, const std::string& cache_dir);

}  // namespace meshtest::runner
