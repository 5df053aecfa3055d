// `meshtest runs`: the recent runs of a store, one line per run and arch:
// state, what the run was asked to run and how each case ended, with the
// selected cases that have no result counted as missing.
#pragma once

#include <ostream>
#include <string>

#include "reports/result_store.h"

namespace meshtest::runner {

// Lists the last `count` runs (newest first), only `arch` when set; exit status 0.
int cmd_runs(reports::ResultStore& store, int count, const std::string& arch, std::ostream& out);

}  // namespace meshtest::runner
