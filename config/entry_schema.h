// The fields of a test_config entry, in one table: each field's YAML name,
// how its value is read and checked, how it is copied (arch_overrides) and
// how it is shown (`meshtest show`). arch_overrides itself is read by
// entry_reader.cpp, since it holds fields of this table.
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

// Every field except arch_overrides, in the order `show` lists them.
const std::vector<FieldSpec>& entry_fields();
const FieldSpec* find_field(std::string_view name);

constexpr std::string_view kArchOverridesField = "arch_overrides";

// Every name an entry may use (the table plus arch_overrides): the candidates
// for "did you mean".
const std::vector<std::string>& entry_field_names();

// Fields other runners in this field define and meshtest does not use:
// accepted with a warning so their files load unchanged.
bool is_foreign_field(std::string_view name);

}  // namespace meshtest::config
