// Command-line wiring of the config subcommands (validate-config, show),
// kept out of main.cpp: registers them on the app and runs the chosen one.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runner/cli/config_commands.h"

namespace meshtest::runner {

class ConfigCommands {
 public:
  // Adds validate-config and show to `app`.
  explicit ConfigCommands(CLI::App& app);
  // The exit status of the chosen subcommand; nullopt when neither was chosen.
  std::optional<int> run() const;

 private:
  CommonOptions validate_common_, show_common_;
  ValidateOptions validate_;
  std::string show_id_;
  CLI::App *validate_cmd_, *show_cmd_;
};

}  // namespace meshtest::runner
