// Line-based edits of one test_config YAML file: find an entry's block by its
// test id, set or erase one of its fields, append a new entry. Lines that are
// not edited stay byte for byte (comments, order, quoting, spacing); the YAML
// is never re-emitted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/line_edits.h"

namespace meshtest::reports {

class YamlEntryEdits {
 public:
  explicit YamlEntryEdits(const std::string& text) : edits_(text) {}

  // False when the id has no block-style entry here (absent, or `id: {flow}`).
  bool has_entry(const std::string& test_id) const;
  // True when some line has the id as its key, in any style.
  bool mentions(const std::string& test_id) const;
  // The field's value as written (quotes and comment stripped), if the entry has it.
  std::optional<std::string> field(const std::string& test_id, const std::string& name) const;
  // Replaces the field's value in place (keeping quotes style and comment), or
  // adds `name: value` as the entry's first field (`first`) or after its last line.
  void set_field(const std::string& test_id, const std::string& name, const std::string& value, bool first = false);
  // Removes the field line and any deeper-indented continuation lines.
  void erase_field(const std::string& test_id, const std::string& name);
  // Adds `key: value` under the entry's block-mapping field `name` (creating
  // `name:` at the end of the entry when absent). False, and no edit, when the
  // field is written in flow style or already has `key`.
  bool add_to_mapping_field(const std::string& test_id, const std::string& name, const std::string& key,
                            const std::string& value);
  // Appends `id:` with `fields` (name, value) at the end of the test_config mapping.
  void add_entry(const std::string& test_id, const std::vector<std::pair<std::string, std::string>>& fields);

  const LineEdits& edits() const { return edits_; }

 private:
  struct Block {
    size_t key = 0;          // line of "id:"
    size_t end = 0;          // one past its last non-blank, non-comment line
    size_t field_indent = 0;
  };
  std::optional<Block> find_block(const std::string& test_id) const;
  std::optional<size_t> find_field(const Block& block, const std::string& name) const;
  std::pair<size_t, size_t> entry_indents() const;  // (key indent, field indent) used by existing entries

  LineEdits edits_;
};

}  // namespace meshtest::reports
