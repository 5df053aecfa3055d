// validate-config and show on the command line (see config_cli.h).
#include "runner/cli/config_cli.h"

#include <iostream>

namespace meshtest::runner {

namespace {

// Where the config and the models are, for both subcommands.
void add_source_options(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--config-dir", o.config_dir,
                  "test_config folder or file (default: $MESHTEST_CONFIG_DIR, then the source test_config)");
  cmd->add_option("--models-root", o.models_roots,
                  "Folder to scan for model loaders, for the checks that need discovery (repeatable)");
  cmd->add_option("--arch", o.arch, "Arch whose arch_overrides apply")->capture_default_str();
  cmd->add_option("--backend", o.backend, "Backend whose backend_overrides apply: simulated, pjrt or pjrt:<platform>")
      ->capture_default_str();
  cmd->add_flag("--emitc", o.emitc, "Apply emitc_overrides, as `run --emitc` does");
}

}  // namespace

ConfigCommands::ConfigCommands(CLI::App& app) {
  validate_cmd_ = app.add_subcommand(
      "validate-config", "Check every test_config file; print each problem as file:line:column and exit 2 if any");
  add_source_options(validate_cmd_, validate_common_);
  validate_cmd_->add_flag("--schema-only", validate_.schema_only,
                          "Skip the checks that need discovery (stale ids, placeholders of discovered models)");

  show_cmd_ = app.add_subcommand("show", "Print a case's resolved test_config entry, markers and thresholds");
  show_cmd_->add_option("id", show_id_, "Test id")->required();
  add_source_options(show_cmd_, show_common_);
}

std::optional<int> ConfigCommands::run() const {
  if (*validate_cmd_) return cmd_validate_config(validate_common_, validate_, std::cout);
  if (*show_cmd_) return cmd_show(show_common_, show_id_, std::cout, std::cerr);
  return std::nullopt;
}

}  // namespace meshtest::runner
