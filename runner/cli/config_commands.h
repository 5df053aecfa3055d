// The config subcommands: `validate-config` (every problem in the test_config
// files, then exit 2) and `show ID` (a case's resolved entry, markers,
// thresholds, and where each value came from).
#pragma once

#include <iosfwd>
#include <string>

#include "runner/cli/commands.h"

namespace meshtest::runner {

struct ValidateOptions {
  bool schema_only = false;  // skip the checks that need discovery (stale ids, placeholder duplicates)
};

int cmd_validate_config(const CommonOptions& common, const ValidateOptions& options, std::ostream& out);
int cmd_show(const CommonOptions& common, const std::string& test_id, std::ostream& out, std::ostream& err);

}  // namespace meshtest::runner
