// Resolving arch_overrides for the arch a run targets (--arch): every field
// set under arch_overrides.<arch> replaces the entry's own, field by field
// and shallow (a list replaces the whole list).
#pragma once

#include <string_view>

#include "config/test_config.h"

namespace meshtest::config {

// The entry as it applies on `arch`; `sources` of replaced fields point into
// the override block.
TestEntry resolve_for_arch(const TestEntry& entry, std::string_view arch);

}  // namespace meshtest::config
