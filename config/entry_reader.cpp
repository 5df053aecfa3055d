// Schema-driven reading of entries, override blocks and placeholders.
#include "config/entry_reader.h"

#include <map>

#include "config/entry_schema.h"
#include "config/nearest_name.h"

namespace meshtest::config {

namespace {

const std::vector<std::string>& placeholder_field_names() {
  static const std::vector<std::string> names = {"bringup_status", "reason"};
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

bool EntryReader::require_map(const YamlNode& node, const std::string& what) {
  if (node.kind == YamlNode::Kind::Map) return true;
  reader_.error(node, what + " must be a mapping of fields, got " + node.describe());
  return false;
}

TestEntry EntryReader::read_entry(const YamlNode& key, const YamlNode& body) {
  TestEntry e;
  e.defined_at = key.where(reader_.file());
  if (require_map(body, "entry '" + key.value + "'")) read_fields(body, e, Scope{});
  return e;
}

Placeholder EntryReader::read_placeholder(const YamlNode& key, const YamlNode& body) {
  Placeholder p;
  p.name = key.value;
  p.entry.defined_at = key.where(reader_.file());
  // A bare name ("model:" with nothing after it) is a placeholder with the defaults.
  if (body.kind == YamlNode::Kind::Null) return p;
  if (require_map(body, "placeholder '" + key.value + "'")) read_fields(body, p.entry, Scope{.placeholder = true});
  return p;
}

void EntryReader::read_fields(const YamlNode& body, TestEntry& entry, Scope scope) {
  std::map<std::string, const YamlNode*> seen;
  for (size_t i = 0; i < body.map_size(); ++i) {
    const YamlNode& key = body.key(i);
    if (!key.is_scalar()) {
      reader_.error(key, "field names must be strings, got " + key.describe());
      continue;
    }
    auto [it, inserted] = seen.emplace(key.value, &key);
    if (!inserted) {
      reader_.error(key, "duplicate field '" + key.value + "' (first at " +
                             it->second->where(reader_.file()).to_string() + ")");
      continue;
    }
    read_field(key, body.value_at(i), entry, scope);
  }
}

void EntryReader::read_field(const YamlNode& key, const YamlNode& value, TestEntry& entry, Scope scope) {
  const std::string& name = key.value;
  const std::vector<std::string>& allowed = scope.placeholder ? placeholder_field_names() : entry_field_names();
  const OverrideKind* override_kind = find_override_kind(name);
  if (!contains(allowed, name) || (scope.block != nullptr && override_kind != nullptr)) {
    if (is_foreign_field(name)) {
      reader_.warning(key, "field '" + name + "' is used by other runners and ignored by meshtest");
    } else if (contains(entry_field_names(), name)) {
      reader_.error(key, "field '" + name + "' is not allowed in " +
                             (scope.placeholder ? std::string("a placeholder (allowed: bringup_status, reason)")
                                                : std::string(scope.block->one_block)));
    } else {
      std::string message = "unknown field '" + name + "'";
      if (auto near = did_you_mean(name, allowed)) message += " (did you mean '" + *near + "'?)";
      reader_.error(key, message);
    }
    return;
  }
  entry.sources[name] = key.where(reader_.file());
  if (override_kind != nullptr) read_overrides(*override_kind, key, value, entry);
  else find_field(name)->read(reader_, value, entry);
}

void EntryReader::read_block(const OverrideKind& kind, const std::string& name, const YamlNode& key,
                             const YamlNode& body, TestEntry& entry) {
  Override o;
  o.name = name;
  o.defined_at = key.where(reader_.file());
  if (require_map(body, block_label(kind, o))) read_fields(body, o.fields, Scope{.block = &kind});
  (entry.*kind.blocks).push_back(std::move(o));
}

void EntryReader::read_overrides(const OverrideKind& kind, const YamlNode& field_key, const YamlNode& node,
                                 TestEntry& entry) {
  if (!kind.named()) {
    read_block(kind, std::string(kind.only_block), field_key, node, entry);
    return;
  }
  const std::string field(kind.field), noun(kind.noun);
  if (node.kind != YamlNode::Kind::Map) {
    reader_.error(node, "field '" + field + "' must map " + noun + " names to fields, got " + node.describe());
    return;
  }
  std::map<std::string, const YamlNode*> seen;
  for (size_t i = 0; i < node.map_size(); ++i) {
    const YamlNode& key = node.key(i);
    const YamlNode& body = node.value_at(i);
    if (!key.is_scalar()) {
      reader_.error(key, noun + " names must be strings, got " + key.describe());
      continue;
    }
    if (auto problem = kind.unknown_name_message(key.value)) {
      reader_.error(key, *problem);
      continue;
    }
    auto [it, inserted] = seen.emplace(key.value, &key);
    if (!inserted) {
      reader_.error(key, "duplicate " + noun + " '" + key.value + "' in " + field + " (first at " +
                             it->second->where(reader_.file()).to_string() + ")");
      continue;
    }
    read_block(kind, key.value, key, body, entry);
  }
}

}  // namespace meshtest::config
