// Perf mode (docs/how-to/perf.md): after a case's checked execution, one
// warm-up and N timed executions of the same compiled program; the record
// gets the median seconds of one execution: the device's own time where the
// backend measures it (pjrt: launch to completion event, transfers excluded),
// else the host's time of the whole execute call. (The modelled device time
// and samples/s of every compiled case are recorded by the compile phase.)
#pragma once

#include <map>
#include <string>

#include "backend/backend.h"
#include "core/graph.h"
#include "reports/case_result.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

// Timed executions when a case is marked `perf` and --perf gave no count.
inline constexpr int kDefaultPerfIterations = 5;

// Timed executions for `test_case`: `requested` (--perf N) when positive,
// kDefaultPerfIterations for a case marked `perf`, else 0 (no perf run).
int perf_iterations_for(const TestCase& test_case, int requested);

// Runs the warm-up and `iterations` timed executions and fills the record's
// perf fields; the outputs of these runs are not compared again (the checked
// execution already was).
void run_perf(backend::Backend& backend, backend::Executable& executable,
              const std::map<std::string, Tensor>& inputs, int iterations, reports::CaseResult& record);

}  // namespace meshtest::runner
