// The subcommands behind the CLI: each takes parsed options and returns the
// process exit status (0 nothing unexpected, 1 something unexpected, 2 usage
// or config error).
#pragma once

#include <string>
#include <vector>

#include "runner/selection.h"

namespace meshtest::runner {

struct CommonOptions {
  SelectionOptions selection;
  std::vector<std::string> models_roots;  // empty: MESHTEST_MODELS_PATH, then the build's models
  std::string config_dir;                 // empty: MESHTEST_CONFIG_DIR, then the source test_config
  std::string arch = "n150";
};

struct RunOptions {
  std::string junitxml;
  std::string db = "meshtest-results.db";  // "" disables the store
  int optimization_level = 0;
  bool force_run = false;
  bool strict_xfail = true;
  std::string argv;  // recorded with the run
};

int cmd_collect(const CommonOptions& common);
int cmd_run(const CommonOptions& common, const RunOptions& run);

}  // namespace meshtest::runner
