// Field-by-field application of arch_overrides (see arch_overrides.h).
#include "config/arch_overrides.h"

#include "config/entry_schema.h"

namespace meshtest::config {

TestEntry resolve_for_arch(const TestEntry& entry, std::string_view arch) {
  TestEntry resolved = entry;
  for (const ArchOverride& o : entry.arch_overrides) {
    if (o.arch != arch) continue;
    for (const auto& [name, where] : o.fields.sources) {
      if (const FieldSpec* field = find_field(name)) {
        field->copy(o.fields, resolved);
        resolved.sources[name] = where;
      }
    }
  }
  return resolved;
}

}  // namespace meshtest::config
