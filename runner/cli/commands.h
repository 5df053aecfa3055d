// The subcommands behind the CLI: each takes parsed options and returns the
// process exit status (0 nothing unexpected, 1 something unexpected, 2 usage
// or config error; `run` also: kExitStoreUnreachable, kExitBudgetCut, 128 + signal when interrupted).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "reports/failure_classes.h"
#include "runner/cli/collect_view.h"
#include "runner/cli/report_commands.h"
#include "runner/collection/collection.h"
#include "runner/engine/console_report.h"
#include "runner/engine/fork_server.h"
#include "runner/pipeline/codegen_check.h"
#include "runner/pipeline/compile_settings.h"

namespace meshtest::runner {

// `run`: the results store stayed unreachable past --store-retry-timeout.
constexpr int kExitStoreUnreachable = 6;

struct RunOptions {
  std::string junitxml;
  std::string json;  // --json: JSON lines, one result per line
  int json_stdout_fd = -1;  // --json -: the original stdout, kept apart from descriptor 1 (json_stdout.h)
  std::string db = kDefaultResultsStore;  // "" disables the store
  bool force_run = false;
  bool strict_xfail = true;
  std::string save_tensors_dir;  // --save-tensors DIR; empty: off
  bool save_tensors_always = false;  // --save-tensors-when always (default failed)
  bool log_memory = false;           // --log-memory: peak host memory per phase of each case
  int perf_iterations = 0;       // --perf [N]: timed executions per case (0: only cases marked `perf`)
  std::string perf_batches;      // --batch 1,2,4,...: perf mode's batch sweep
  std::string op_golden_dir;     // --op-golden DIR; empty: off
  bool op_golden_check = false;  // --op-golden-check
  std::string optimizer_step;  // --optimizer-step sgd:LR; empty: none
  std::string backend = std::string(backend::kDefaultBackend);  // --backend NAME (pjrt may name a platform: pjrt:cuda)
  // Whose backend_overrides the cases take: --backend, for a PJRT plugin
  // with the platform its client reports (set by resolve_run_backend).
  std::string overrides_backend;
  std::string pjrt_plugin;                // --pjrt-plugin PATH (else $MESHTEST_PJRT_PLUGIN)
  std::vector<std::string> pjrt_options;  // --pjrt-option NAME=VALUE, repeated
  std::string argv;  // recorded with the run
  CompileSettings compile;  // compile-phase options (issue 4)
  CodegenSettings codegen;  // --emitc, --sdk-prefix; `codegen --out`
  // Execution engine (issue 8).
  bool isolate = true;            // --isolation process (default) | none
  size_t jobs = 0;                // -j; 0: the number of cores
  size_t cases_per_worker = 1;    // --cases-per-worker; 1: a new worker for every case
  double timeout_seconds = 1800;  // --timeout; 0: none
  double hang_seconds = 60;       // --hang-timeout
  std::string max_memory;         // --max-memory; empty: 80% of physical memory
  int reruns = 0;
  bool resume = false;
  std::string resume_run_id;      // empty: the last unfinished run
  std::string shard;              // "I/N"
  std::string run_id;             // --run-id; empty: a new id
  // A store that goes away (docs/how-to/nightly-and-shards.md).
  double store_retry_seconds = 300;  // --store-retry-timeout
  std::string spool;                 // --spool; empty: meshtest-spool-RUN_ID.jsonl here
  // Scale-out (docs/how-to/nightly-and-shards.md).
  std::string queue;                 // --queue postgresql://...; empty: this process's own list
  double queue_lease_seconds = 60;   // --queue-lease
  // Habits at the desk (docs/how-to/select-tests.md).
  size_t maxfail = 0;           // -x (1) / --maxfail N; 0: no limit
  bool last_failed = false;     // --lf: only the cases that failed last time (from the store)
  bool failed_first = false;    // --ff: those first, then the rest
  int durations = -1;           // --durations N: the N slowest (0: all; -1: off)
  bool collect_only = false;    // --collect-only: list what would run, run nothing
  std::string budget;           // --budget DURATION: start only what can still finish (runner/cli/run_budget.h)
  CollectView collect_view;     // how --collect-only lists (--tree, -q)
  ConsoleStyle console;         // colour and -q/-v; "--json -" moves the console to stderr
};

// Exit status when the selection matches no case (as pytest's 5).
inline constexpr int kExitNoTestsSelected = 5;

// `collect --estimate [-j N]`: the selection's expected wall time instead of its list.
struct EstimateOptions {
  bool estimate = false;
  size_t jobs = 0;  // 0: the number of cores
  std::string db = kDefaultResultsStore;
};

int cmd_collect(const CommonOptions& common, const CollectView& view = {}, const EstimateOptions& estimate = {});
// Checks the run's backend (for pjrt: the plugin opens, its client names
// its platform) and sets run.overrides_backend; on a problem prints it and
// returns 2. Call it before start_worker_server (the probe forks, and the
// workers' collection needs the platform).
int resolve_run_backend(const CommonOptions& common, RunOptions& run);
// The fork server for isolated workers; start it before anything creates
// threads (first thing after parsing the command line). Workers redo the
// collection once, in the server, and run cases by id.
std::unique_ptr<ForkServer> start_worker_server(const CommonOptions& common, const RunOptions& run);
// The failure classes of the test_config folder (its failure_reasons.yaml,
// else the shipped one; reports/failure_classes.h) and their problems.
reports::FailureClasses load_run_failure_classes(const CommonOptions& common,
                                                 std::vector<config::Diagnostic>& diagnostics);
// `server` is null for --isolation none.
int cmd_run(const CommonOptions& common, const RunOptions& run, ForkServer* server);
// `codegen ID --out DIR`: runs the one selected case in this process and
// writes its compiled device program as C++ (run.codegen.out_dir).
int cmd_codegen(const CommonOptions& common, const RunOptions& run);
// `export ID --format stablehlo --out DIR [--inline-weights] [--composites]`:
// compiles the one selected case in this process (no execution) and writes
// the graph it compiles as StableHLO: DIR/<case folder>.mlir (+ .safetensors)
// (runner/pipeline/stablehlo_stage.h; run.compile.stablehlo_export_dir).
int cmd_export(const CommonOptions& common, const RunOptions& run);

}  // namespace meshtest::runner
