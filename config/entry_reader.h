// Reads the body of one test_config entry (or override block, or placeholder)
// into a TestEntry: every field checked against the schema, unknown names
// answered with "did you mean", duplicated fields reported, foreign fields
// (other runners') accepted with a warning.
#pragma once

#include <string>
#include <vector>

#include "config/overrides.h"
#include "config/test_config.h"
#include "config/value_reader.h"
#include "config/yaml_tree.h"

namespace meshtest::config {

class EntryReader {
 public:
  explicit EntryReader(ValueReader& reader) : reader_(reader) {}

  // `key` is the test id's node, `body` its mapping of fields.
  TestEntry read_entry(const YamlNode& key, const YamlNode& body);
  // PLACEHOLDER_MODELS.<name>: only bringup_status and reason.
  Placeholder read_placeholder(const YamlNode& key, const YamlNode& body);

 private:
  // What a body of fields belongs to: an entry, a placeholder, or one block
  // of an override kind (arch_overrides.<arch>, backend_overrides.<backend>,
  // emitc_overrides).
  struct Scope {
    bool placeholder = false;
    const OverrideKind* block = nullptr;
  };
  void read_fields(const YamlNode& body, TestEntry& entry, Scope scope);
  void read_field(const YamlNode& key, const YamlNode& value, TestEntry& entry, Scope scope);
  // `field_key` is the kind's field name (an unnamed kind's block is defined there).
  void read_overrides(const OverrideKind& kind, const YamlNode& field_key, const YamlNode& node, TestEntry& entry);
  // One block of `kind`, named `name`, its key at `key`: appended to the entry's blocks.
  void read_block(const OverrideKind& kind, const std::string& name, const YamlNode& key, const YamlNode& body,
                  TestEntry& entry);
  bool require_map(const YamlNode& node, const std::string& what);

  ValueReader& reader_;
};

}  // namespace meshtest::config
