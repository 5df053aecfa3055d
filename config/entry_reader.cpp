// Schema-driven reading of entries, arch overrides and placeholders.
#include "config/entry_reader.h"

#include <map>

#include "config/arch_names.h"
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
  if (require_map(body, "entry '" + key.value + "'")) read_fields(body, e, Context::Entry);
  return e;
}

Placeholder EntryReader::read_placeholder(const YamlNode& key, const YamlNode& body) {
  Placeholder p;
  p.name = key.value;
  p.entry.defined_at = key.where(reader_.file());
  // A bare name ("model:" with nothing after it) is a placeholder with the defaults.
  if (body.kind == YamlNode::Kind::Null) return p;
  if (require_map(body, "placeholder '" + key.value + "'")) read_fields(body, p.entry, Context::Placeholder);
  return p;
}

void EntryReader::read_fields(const YamlNode& body, TestEntry& entry, Context context) {
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
    read_field(key, body.value_at(i), entry, context);
  }
}

void EntryReader::read_field(const YamlNode& key, const YamlNode& value, TestEntry& entry, Context context) {
  const std::string& name = key.value;
  const std::vector<std::string>& allowed =
      context == Context::Placeholder ? placeholder_field_names() : entry_field_names();
  if (!contains(allowed, name) || (context == Context::ArchOverride && name == kArchOverridesField)) {
    if (is_foreign_field(name)) {
      reader_.warning(key, "field '" + name + "' is used by other runners and ignored by meshtest");
    } else if (contains(entry_field_names(), name)) {
      reader_.error(key, "field '" + name + "' is not allowed in " +
                             (context == Context::Placeholder ? "a placeholder (allowed: bringup_status, reason)"
                                                              : "an arch override"));
    } else {
      std::string message = "unknown field '" + name + "'";
      if (auto near = did_you_mean(name, allowed)) message += " (did you mean '" + *near + "'?)";
      reader_.error(key, message);
    }
    return;
  }
  entry.sources[name] = key.where(reader_.file());
  if (name == kArchOverridesField) read_arch_overrides(value, entry);
  else find_field(name)->read(reader_, value, entry);
}

void EntryReader::read_arch_overrides(const YamlNode& node, TestEntry& entry) {
  if (node.kind != YamlNode::Kind::Map) {
    reader_.error(node, "field 'arch_overrides' must map arch names to fields, got " + node.describe());
    return;
  }
  std::map<std::string, const YamlNode*> seen;
  for (size_t i = 0; i < node.map_size(); ++i) {
    const YamlNode& key = node.key(i);
    const YamlNode& body = node.value_at(i);
    if (!key.is_scalar()) {
      reader_.error(key, "arch names must be strings, got " + key.describe());
      continue;
    }
    if (auto problem = unknown_arch_message(key.value)) {
      reader_.error(key, *problem);
      continue;
    }
    auto [it, inserted] = seen.emplace(key.value, &key);
    if (!inserted) {
      reader_.error(key, "duplicate arch '" + key.value + "' in arch_overrides (first at " +
                             it->second->where(reader_.file()).to_string() + ")");
      continue;
    }
    ArchOverride o;
    o.arch = key.value;
    o.defined_at = key.where(reader_.file());
    if (require_map(body, "arch_overrides." + key.value)) read_fields(body, o.fields, Context::ArchOverride);
    entry.arch_overrides.push_back(std::move(o));
  }
}

}  // namespace meshtest::config
