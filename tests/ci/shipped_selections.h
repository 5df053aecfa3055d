// The shipped workflows' `meshtest run` selections as a test runs them: one
// per job run (every matrix combination), without the options that only say
// where results go or which shard runs, restricted to the quick cases, and
// identical ones merged (a nightly's shards are one selection per arch).
#pragma once

#include <string>
#include <vector>

#include "tests/ci/workflow_commands.h"

namespace meshtest::ci {

// The quick cases: the tiny variant of every family (`tiny` in the id) and
// the MNIST MLP (the one family without a tiny variant; 784-512-512-10, well
// under a second), except whisper_tiny's training cases: the f32 CPU golden
// backward alone takes 19 s on an idle 2-core machine and 55-75 s on a busy
// one (2026-11-27), and the cases are in four selections (weekly n150 and
// p150, training n150, training n300 data parallel): with them the test took
// 187 s, without them 53 s (other jobs sharing the machine both times). A
// `-k` keyword expression.
extern const char* const kQuickCases;

// `run_args` (`run` and its options, as a workflow passes them) with the
// output and bookkeeping options dropped (--db, --junitxml, --json, --run-id,
// --shard, --spool, --queue*, --resume, --save-tensors, --serialize,
// --store-retry-timeout, --durations, --lf, --ff) and `-k` narrowed to
// `quick`: `-k "(K) and (quick)"`, or `-k "quick"` without one. Every other
// option (selection, --arch, --optimizer-step, --reruns, numerics) stays.
std::vector<std::string> restricted_run(const std::vector<std::string>& run_args, const std::string& quick);

// `run_args` with the same output and bookkeeping options dropped, and
// nothing added: the whole selection (`meshtest coverage` compiles it).
std::vector<std::string> without_output_options(const std::vector<std::string>& run_args);

struct ShippedSelection {
  std::vector<std::string> args;     // restricted_run of the workflows' command
  std::vector<std::string> sources;  // "<workflow file> <job> <matrix values>", each job run it stands for
};

struct WorkflowInvocations {
  std::string file;                       // e.g. "training.yml"
  std::vector<MeshtestInvocation> calls;  // MatrixExpansion::Every
};

// Every `run` invocation of `workflows`, restricted to `quick`, identical
// argument lists merged, in the order first seen.
std::vector<ShippedSelection> shipped_selections(const std::vector<WorkflowInvocations>& workflows,
                                                 const std::string& quick);

}  // namespace meshtest::ci
