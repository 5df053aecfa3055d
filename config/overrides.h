// arch_overrides, backend_overrides and emitc_overrides: blocks of an
// entry's fields that replace the entry's own when a run targets that arch
// (--arch) or backend (--backend), or runs with --emitc, field by field and
// shallow (a list replaces the whole list). All kinds are read, checked,
// applied and shown by the same code; the table of kinds below is the one
// place that tells them apart.
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
  // backend_overrides.<backend> applies, and for "pjrt:<platform>" first
  // backend_overrides.pjrt, then backend_overrides.pjrt:<platform>
  std::string backend = std::string(kDefaultBackendName);
  bool emitc = false;  // run --emitc
};

// One kind of override block. A named kind maps names to blocks
// (arch_overrides.<arch>); an unnamed one is a single block itself
// (emitc_overrides), kept as one Override named `only_block`.
struct OverrideKind {
  std::string_view field;                    // the entry's YAML field: "arch_overrides"
  std::string_view noun;                     // what its keys name: "arch" (named kinds)
  std::string_view one_block;                // a block, in messages: "an arch override"
  std::vector<Override> TestEntry::*blocks;  // where an entry keeps its blocks
  // the names of the blocks the run picks, in the order they apply (none: empty)
  std::vector<std::string> (*picked)(const OverrideTarget& target);
  std::optional<std::string> (*unknown_name_message)(std::string_view name);  // nullopt: a known name (named kinds)
  std::string_view only_block;               // non-empty: the kind is unnamed, its block kept under this name
  bool named() const { return only_block.empty(); }
};

// arch_overrides, then backend_overrides, then emitc_overrides: the order
// they apply in (the most specific last).
const std::vector<OverrideKind>& override_kinds();
const OverrideKind* find_override_kind(std::string_view field);

// The entry as it applies to `target`: its own fields, then those of
// arch_overrides.<arch>, then those of backend_overrides.<backend> (for
// pjrt:<platform>, .pjrt then .pjrt:<platform>), then (with --emitc) those of
// emitc_overrides.
// `sources` of replaced fields point into the block.
TestEntry resolve_overrides(const TestEntry& entry, const OverrideTarget& target);

// How a block is named in `show` and messages: "arch_overrides.p150", or
// "emitc_overrides" for an unnamed kind.
std::string block_label(const OverrideKind& kind, const Override& block);

// Whether `target` picks `block` of `kind`.
bool applies(const OverrideKind& kind, const Override& block, const OverrideTarget& target);

// block_label of the block `field`'s value in resolve_overrides(entry,
// target) comes from ("backend_overrides.pjrt"); nullopt when it is the
// entry's own.
std::optional<std::string> override_origin(const TestEntry& entry, const OverrideTarget& target,
                                           std::string_view field);

}  // namespace meshtest::config
