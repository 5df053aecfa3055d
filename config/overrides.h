// arch_overrides and backend_overrides: blocks of an entry's fields that
// replace the entry's own when a run targets that arch (--arch) or backend
// (--backend), field by field and shallow (a list replaces the whole list).
// Both kinds are read, checked, applied and shown by the same code; the table
// of kinds below is the one place that tells them apart.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/backend_names.h"
#include "config/test_config.h"

namespace meshtest::config {

// What a run targets: the blocks named by these apply.
struct OverrideTarget {
  std::string arch;
  std::string backend = std::string(kDefaultBackendName);
};

// One kind of override block.
struct OverrideKind {
  std::string_view field;                    // the entry's YAML field: "arch_overrides"
  std::string_view noun;                     // what its keys name: "arch"
  std::string_view one_block;                // a block, in messages: "an arch override"
  std::vector<Override> TestEntry::*blocks;  // where an entry keeps its blocks
  std::string OverrideTarget::*target;       // the run's name that picks a block
  std::optional<std::string> (*unknown_name_message)(std::string_view name);  // nullopt: a known name
};

// arch_overrides, then backend_overrides: the order they apply in (the most
// specific last).
const std::vector<OverrideKind>& override_kinds();
const OverrideKind* find_override_kind(std::string_view field);

// The entry as it applies to `target`: its own fields, then those of
// arch_overrides.<arch>, then those of backend_overrides.<backend>.
// `sources` of replaced fields point into the block.
TestEntry resolve_overrides(const TestEntry& entry, const OverrideTarget& target);

// "backend_overrides.pjrt" when `field`'s value in resolve_overrides(entry,
// target) comes from that block; nullopt when it is the entry's own.
std::optional<std::string> override_origin(const TestEntry& entry, const OverrideTarget& target,
                                           std::string_view field);

}  // namespace meshtest::config
