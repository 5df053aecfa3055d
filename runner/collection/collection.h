// What collect, run, show and validate-config share: where the config and
// the models are, loading and checking the config, discovery, the matrix
// (arch_overrides, backend_overrides and emitc_overrides resolved for --arch,
// --backend and --emitc)
// and the selection.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/test_config.h"
#include "discovery/discovery.h"
#include "runner/collection/matrix.h"
#include "runner/collection/selection.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

// Where the models and the config are, which cases to select, for which arch
// and backend: what collect, run, show and validate-config take from the
// command line.
struct CommonOptions {
  SelectionOptions selection;
  std::vector<std::string> models_roots;  // empty: MESHTEST_MODELS_PATH, then the build's models
  std::string config_dir;                 // empty: MESHTEST_CONFIG_DIR, then the source test_config
  std::string arch = kDefaultArch;
  std::string backend = std::string(config::kDefaultBackendName);  // --backend: whose backend_overrides apply
  bool emitc = false;  // --emitc: emitc_overrides apply
  std::string changed_base;  // --changed REF (run, collect): only the cases changed since REF (runner/cli/changed_cases.h)
  bool each_stale_id = false;  // -v: a warning per test_config entry that matches no case, not one summary line
};

struct Collected {
  discovery::Discovery discovery;
  config::TestConfig config;
  std::vector<TestCase> cases;
  Selection selection;
};

// --models-root, else $MESHTEST_MODELS_PATH (':'-separated), else the build's models.
std::vector<std::string> resolved_models_roots(const CommonOptions& options);
// --config-dir, else $MESHTEST_CONFIG_DIR, else the source tree's test_config.
std::string resolved_config_dir(const CommonOptions& options);
// The source tree's test_config folder: meshtest's own failure_reasons.yaml
// lives there, used when the config folder has none.
std::string shipped_config_dir();

// Loads `path` and prints every diagnostic to `report` (null: silent).
// nullopt when there was an error: the caller exits 2.
std::optional<config::TestConfig> load_checked_config(const std::string& path, std::ostream* report);

// The checks that need the matrix: stale ids (with the nearest real id) and
// placeholders for discovered models.
std::vector<config::Diagnostic> check_config_against_matrix(const config::TestConfig& config,
                                                            const discovery::Discovery& discovery,
                                                            const std::vector<TestCase>& cases,
                                                            config::Severity severity);

// Config -> discovery -> matrix -> selection. Config errors, an unknown
// --arch or --backend and selection errors are printed to `report` and give nullptr (exit
// 2); the matrix checks are printed as warnings, the stale ids as one line
// (each with CommonOptions::each_stale_id).
std::unique_ptr<Collected> collect_cases(const CommonOptions& options, std::ostream* report);
// "error: --arch: unknown arch ..." / "error: --backend: ..." when the
// options name an arch or backend meshtest does not know (collect_cases
// stops with it; `run` checks it before it opens a backend).
std::optional<std::string> target_problem(const CommonOptions& options);

}  // namespace meshtest::runner
