// The override kinds and their field-by-field application (see overrides.h).
#include "config/overrides.h"

#include "config/arch_names.h"
#include "config/entry_schema.h"

namespace meshtest::config {

namespace {

// The block of `kind` that `target` picks, or null.
const Override* applied_block(const TestEntry& entry, const OverrideKind& kind, const OverrideTarget& target) {
  for (const Override& o : entry.*kind.blocks) {
    if (o.name == target.*kind.target) return &o;
  }
  return nullptr;
}

}  // namespace

const std::vector<OverrideKind>& override_kinds() {
  static const std::vector<OverrideKind> kinds = {
      {"arch_overrides", "arch", "an arch override", &TestEntry::arch_overrides, &OverrideTarget::arch,
       unknown_arch_message},
      {"backend_overrides", "backend", "a backend override", &TestEntry::backend_overrides, &OverrideTarget::backend,
       unknown_backend_message},
  };
  return kinds;
}

const OverrideKind* find_override_kind(std::string_view field) {
  for (const OverrideKind& k : override_kinds()) {
    if (k.field == field) return &k;
  }
  return nullptr;
}

TestEntry resolve_overrides(const TestEntry& entry, const OverrideTarget& target) {
  TestEntry resolved = entry;
  for (const OverrideKind& kind : override_kinds()) {
    const Override* o = applied_block(entry, kind, target);
    if (o == nullptr) continue;
    for (const auto& [name, where] : o->fields.sources) {
      if (const FieldSpec* field = find_field(name)) {
        field->copy(o->fields, resolved);
        resolved.sources[name] = where;
      }
    }
  }
  return resolved;
}

std::optional<std::string> override_origin(const TestEntry& entry, const OverrideTarget& target,
                                           std::string_view field) {
  const std::vector<OverrideKind>& kinds = override_kinds();
  for (auto kind = kinds.rbegin(); kind != kinds.rend(); ++kind) {  // the last applied wins
    const Override* o = applied_block(entry, *kind, target);
    if (o != nullptr && o->fields.sources.count(std::string(field))) return std::string(kind->field) + "." + o->name;
  }
  return std::nullopt;
}

}  // namespace meshtest::config
