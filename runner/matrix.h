// Expands discovered loaders into the test matrix: every variant x supported
// parallelism x run mode, each with its config entry and markers. Loader
// failures become one case each (id = the loader folder) that reports the error.
#pragma once

#include <vector>

#include "config/test_config.h"
#include "discovery/discovery.h"
#include "runner/test_case.h"

namespace meshtest::runner {

// The parallelisms and run modes this build can execute.
const std::vector<Parallelism>& supported_parallelisms();
const std::vector<RunMode>& supported_run_modes();

std::vector<TestCase> build_matrix(const discovery::Discovery& discovery, const config::TestConfig& config);

}  // namespace meshtest::runner
