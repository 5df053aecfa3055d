// The override kinds and their field-by-field application (see overrides.h).
#include "config/overrides.h"

#include "config/arch_names.h"
#include "config/entry_schema.h"

namespace meshtest::config {

namespace {

// The blocks of `kind` that `target` picks, in the order they apply.
std::vector<const Override*> applied_blocks(const TestEntry& entry, const OverrideKind& kind,
                                            const OverrideTarget& target) {
  std::vector<const Override*> blocks;
  for (const std::string& name : kind.picked(target)) {
    for (const Override& o : entry.*kind.blocks) {
      if (o.name == name) blocks.push_back(&o);
    }
  }
  return blocks;
}

std::vector<std::string> picked_arch(const OverrideTarget& t) { return {t.arch}; }
std::vector<std::string> picked_backend(const OverrideTarget& t) { return backend_override_names(t.backend); }
std::vector<std::string> picked_emitc(const OverrideTarget& t) {
  return t.emitc ? std::vector<std::string>{"emitc"} : std::vector<std::string>{};
}

}  // namespace

const std::vector<OverrideKind>& override_kinds() {
  static const std::vector<OverrideKind> kinds = {
      {"arch_overrides", "arch", "an arch override", &TestEntry::arch_overrides, picked_arch, unknown_arch_message,
       ""},
      {"backend_overrides", "backend", "a backend override", &TestEntry::backend_overrides, picked_backend,
       unknown_backend_message, ""},
      {"emitc_overrides", "", "an emitc override", &TestEntry::emitc_overrides, picked_emitc, nullptr, "emitc"},
  };
  return kinds;
}

const OverrideKind* find_override_kind(std::string_view field) {
  for (const OverrideKind& k : override_kinds()) {
    if (k.field == field) return &k;
  }
  return nullptr;
}

std::string block_label(const OverrideKind& kind, const Override& block) {
  return kind.named() ? std::string(kind.field) + "." + block.name : std::string(kind.field);
}

bool applies(const OverrideKind& kind, const Override& block, const OverrideTarget& target) {
  for (const std::string& name : kind.picked(target)) {
    if (!name.empty() && block.name == name) return true;
  }
  return false;
}

TestEntry resolve_overrides(const TestEntry& entry, const OverrideTarget& target) {
  TestEntry resolved = entry;
  for (const OverrideKind& kind : override_kinds()) {
    for (const Override* o : applied_blocks(entry, kind, target)) {
      for (const auto& [name, where] : o->fields.sources) {
        if (const FieldSpec* field = find_field(name)) {
          field->copy(o->fields, resolved);
          resolved.sources[name] = where;
        }
      }
    }
  }
  return resolved;
}

std::optional<std::string> override_origin(const TestEntry& entry, const OverrideTarget& target,
                                           std::string_view field) {
  const std::vector<OverrideKind>& kinds = override_kinds();
  for (auto kind = kinds.rbegin(); kind != kinds.rend(); ++kind) {  // the last applied wins
    const std::vector<const Override*> blocks = applied_blocks(entry, *kind, target);
    for (auto o = blocks.rbegin(); o != blocks.rend(); ++o) {
      if ((*o)->fields.sources.count(std::string(field))) return block_label(*kind, **o);
    }
  }
  return std::nullopt;
}

}  // namespace meshtest::config
