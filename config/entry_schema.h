// The fields of a test_config entry, in one table: each field's YAML name,
// how its value is read and checked, how it is copied (overrides) and how it
// is shown (`meshtest show`). The override blocks themselves (arch_overrides,
// backend_overrides, emitc_overrides: config/overrides.h) are read by
// entry_reader.cpp, since they hold fields of this table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/test_config.h"
#include "config/value_reader.h"

namespace meshtest::config {

struct FieldSpec {
  std::string_view name;
  // Reads `value` into `entry`; problems go to the reader.
  void (*read)(ValueReader& reader, const YamlNode& value, TestEntry& entry);
  // Copies this field from one entry to another.
  void (*copy)(const TestEntry& from, TestEntry& to);
  // The value as YAML-like text, or nullopt when the entry leaves it unset.
  std::optional<std::string> (*show)(const TestEntry& entry);
};

// Every field except the override blocks, in the order `show` lists them.
const std::vector<FieldSpec>& entry_fields();
const FieldSpec* find_field(std::string_view name);

// Every name an entry may use (the table plus the override blocks): the
// candidates for "did you mean".
const std::vector<std::string>& entry_field_names();

// Fields other runners in this field define and meshtest does not use:
// accepted with a warning so their files load unchanged.
bool is_foreign_field(std::string_view name);

}  // namespace meshtest::config
