// meshtest show ID: a case's entry after arch_overrides, backend_overrides
// and emitc_overrides (--arch, --backend, --emitc), field by field with the
// file:line each value comes from, plus its markers and the thresholds the
// comparison will use.
#include <cstdio>
#include <ostream>

#include "comparators/metrics.h"
#include "config/entry_schema.h"
#include "config/nearest_name.h"
#include "config/overrides.h"
#include "config/value_reader.h"
#include "runner/cli/config_commands.h"
#include "runner/collection/collection.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

namespace {

// "test_config/x.yaml:12", with "(arch_overrides.n300)", "(backend_overrides.pjrt)"
// or "(emitc_overrides)" when the value comes from there.
std::string origin(const config::TestEntry& written, const config::TestEntry& resolved, const std::string& field,
                   const config::OverrideTarget& target) {
  auto it = resolved.sources.find(field);
  if (it == resolved.sources.end()) return "default";
  if (auto block = config::override_origin(written, target, field)) return it->second.file_line() + " (" + *block + ")";
  return it->second.file_line();
}

// "  arch_overrides: p150 (x.yaml:7, applied) n300 (x.yaml:9)", one line per kind the entry uses;
// an unnamed kind's block without a name: "  emitc_overrides: (x.yaml:11, applied)".
void print_override_blocks(std::ostream& out, const config::TestEntry& written, const config::OverrideTarget& target) {
  for (const config::OverrideKind& kind : config::override_kinds()) {
    const std::vector<config::Override>& blocks = written.*kind.blocks;
    if (blocks.empty()) continue;
    out << "  " << kind.field << ":";
    for (const config::Override& o : blocks) {
      if (kind.named()) out << " " << o.name;
      out << " (" << o.defined_at.file_line() << (config::applies(kind, o, target) ? ", applied" : "") << ")";
    }
    out << "\n";
  }
}

void print_fields(std::ostream& out, const config::TestEntry& written, const config::TestEntry& resolved,
                  const config::OverrideTarget& target) {
  for (const config::FieldSpec& f : config::entry_fields()) {
    const std::string name(f.name);
    const std::optional<std::string> value = f.show(resolved);
    char line[160];
    std::snprintf(line, sizeof line, "  %-30s %-24s ", name.c_str(), value ? value->c_str() : "-");
    out << line << origin(written, resolved, name, target) << "\n";
  }
  print_override_blocks(out, written, target);
}

void print_thresholds(std::ostream& out, const TestCase& c, const config::OverrideTarget& target) {
  PipelineOptions options;
  options.chip.arch = target.arch;
  options.backend = target.backend;
  const reports::CaseResult r = describe_case(c, options);
  const comparators::ComparisonConfig defaults;
  const auto asserted = [](bool on) { return on ? "checked" : "not checked"; };
  out << "thresholds:\n";
  out << "  pcc >= " << config::format_number(r.required_pcc) << " (" << asserted(r.assert_pcc) << ")\n";
  out << "  atol <= " << config::format_number(r.required_atol) << " (" << asserted(r.assert_atol) << ")\n";
  out << "  allclose rtol " << config::format_number(c.expectation.allclose_rtol.value_or(defaults.allclose_rtol))
      << " atol " << config::format_number(c.expectation.allclose_atol.value_or(defaults.allclose_atol)) << " ("
      << asserted(r.assert_allclose) << ")\n";
}

std::string describe_kind(const TestCase& c) {
  if (c.placeholder) return "placeholder for '" + c.info.model + "' (not run)";
  if (!c.loader_error.empty()) return "loader failure: " + c.loader_error;
  return "loader " + c.loader_dir + ", model " + c.info.model + ", variant " + c.info.variant + ", group " +
         c.info.group;
}

}  // namespace

int cmd_show(const CommonOptions& common, const std::string& id, std::ostream& out, std::ostream& err) {
  CommonOptions o = common;
  o.selection = {};
  const std::unique_ptr<Collected> c = collect_cases(o, &err);
  if (!c) return 2;
  const TestCase* found = nullptr;
  for (const TestCase& t : c->cases) {
    if (t.id == id) found = &t;
  }
  const config::TestEntry* written = c->config.find(id);
  if (found == nullptr && written == nullptr) {
    std::vector<std::string> ids;
    for (const TestCase& t : c->cases) ids.push_back(t.id);
    err << "error: no test case or test_config entry has the id '" << id << "'";
    if (auto near = config::nearest_name(id, ids)) err << " (nearest: '" << *near << "')";
    err << "\n";
    return 2;
  }
  const config::OverrideTarget target{o.arch, o.backend, o.emitc};
  out << id << "\n";
  out << "arch: " << o.arch << "\n";
  out << "backend: " << o.backend << "\n";
  out << "emitc: " << (o.emitc ? "yes" : "no") << "\n";
  out << "case: " << (found ? describe_kind(*found) : "none discovered (the entry is stale)") << "\n";
  if (found && found->placeholder) {
    const config::Placeholder& p = c->config.placeholders.at(id);
    out << "entry: PLACEHOLDER_MODELS at " << p.entry.defined_at.to_string() << "\n";
    print_fields(out, p.entry, found->expectation, target);
  } else if (written) {
    out << "entry: " << written->defined_at.to_string() << "\n";
    print_fields(out, *written, config::resolve_overrides(*written, target), target);
  } else {
    out << "entry: none (defaults)\n";
    print_fields(out, {}, {}, target);
  }
  if (!found) return 0;
  out << "markers:";
  for (const std::string& m : found->markers) out << " " << m;
  out << "\n";
  print_thresholds(out, *found, target);
  return 0;
}

}  // namespace meshtest::runner
