// meshtest validate-config: loads every test_config file, runs the schema
// checks and (unless --schema-only) the checks against discovery, and prints
// every problem sorted by file and position, those of the failure classes
// (failure_reasons.yaml, reports/failure_classes.h) included.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <tuple>

#include "config/test_config.h"
#include "runner/cli/commands.h"
#include "runner/cli/config_commands.h"
#include "runner/collection/collection.h"
#include "runner/collection/matrix.h"

namespace meshtest::runner {

int cmd_validate_config(const CommonOptions& o, const ValidateOptions& options, std::ostream& out) {
  const std::string path = resolved_config_dir(o);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out << "error: test config path '" << path << "' does not exist\n";
    return 2;
  }
  std::vector<config::Diagnostic> diagnostics;
  const config::TestConfig config = config::load_test_config(path, diagnostics);
  load_run_failure_classes(o, diagnostics);  // failure_reasons.yaml: its problems are the config's
  if (!options.schema_only) {
    const discovery::Discovery discovery = discovery::discover(resolved_models_roots(o));
    const std::vector<TestCase> cases = build_matrix(discovery, config, {o.arch, o.backend});
    const auto found = check_config_against_matrix(config, discovery, cases, config::Severity::Error);
    diagnostics.insert(diagnostics.end(), found.begin(), found.end());
  }
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const config::Diagnostic& a, const config::Diagnostic& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
  for (const config::Diagnostic& d : diagnostics) out << d.to_string() << "\n";
  const size_t errors = config::count_errors(diagnostics);
  const size_t warnings = diagnostics.size() - errors;
  if (errors > 0) {
    out << "error: " << errors << " problem(s) in test config '" << path << "'\n";
    return 2;
  }
  out << "test config OK: " << config.entries.size() << " entries, " << config.placeholders.size()
      << " placeholder(s) in " << config.files.size() << " file(s)";
  if (warnings > 0) out << ", " << warnings << " warning(s)";
  out << (options.schema_only ? " (schema only)\n" : "\n");
  return 0;
}

}  // namespace meshtest::runner
