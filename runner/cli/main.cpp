// meshtest's command line: subcommands, options and exit status.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "backend/device_settings.h"
#include "config/backend_names.h"
#include "core/error.h"
#include "core/mutation.h"
#include "runner/cli/changed_command.h"
#include "runner/cli/cli_habits.h"
#include "runner/cli/commands.h"
#include "runner/cli/config_cli.h"
#include "runner/cli/coverage_command.h"
#include "runner/cli/help_text.h"
#include "runner/cli/json_stdout.h"
#include "runner/cli/merge_command.h"
#include "runner/cli/mutate_command.h"
#include "runner/cli/openmp_wait_policy.h"
#include "runner/cli/ops_command.h"
#include "runner/cli/report_commands.h"
#include "runner/cli/triage_command.h"
#include "runner/engine/budget.h"
#include "runner/engine/process_stats.h"
#include "runner/pipeline/backends.h"
#include "runner/pipeline/batch_sweep.h"
#include "runner/engine/progress.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/training_steps.h"

namespace {

using meshtest::runner::CommonOptions;
using meshtest::runner::RunOptions;

// A CLI11 check from a function that throws on a bad value: its message is the option's error.
std::function<std::string(const std::string&)> rejects_what_throws(std::function<void(const std::string&)> parse) {
  return [parse](const std::string& value) {
    try {
      parse(value);
      return std::string();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
}

void add_selection_options(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("ids", o.selection.ids, "Exact test ids to select");
  cmd->add_option("-k", o.selection.keyword,
                  "Keyword expression: case-insensitive substrings of ids and markers, with and/or/not/()");
  cmd->add_option("-m", o.selection.marker,
                  "Marker expression, e.g. \"single_device and not training\"; a marker no collected case carries "
                  "is an error (exit 2)");
  cmd->add_flag("--allow-unknown-markers", o.selection.allow_unknown_markers,
                "Accept -m markers that no collected case carries (they select nothing)");
  cmd->add_option("--arch", o.arch, "Target arch profile")->capture_default_str();
  cmd->add_option("--models-root", o.models_roots,
                  "Folder to scan for model loaders (repeatable; default: $MESHTEST_MODELS_PATH, then the build's "
                  "models)");
  cmd->add_option("--config-dir", o.config_dir,
                  "Folder of test_config YAML files (default: $MESHTEST_CONFIG_DIR, then the source test_config)");
}

// The device backend of `run` and `ops`: --backend, --pjrt-plugin (or $MESHTEST_PJRT_PLUGIN), --pjrt-option.
void add_backend_options(CLI::App* cmd, std::string& backend, std::string& pjrt_plugin,
                         std::vector<std::string>& pjrt_options) {
  cmd->add_option("--backend", backend,
                  "Device backend, by name: simulated (meshtest's chip, in process) or pjrt (a PJRT plugin, "
                  "--pjrt-plugin; pjrt:<platform> also insists on the plugin's platform, e.g. pjrt:cuda)")
      ->check(rejects_what_throws([](const std::string& v) {  // the name; pjrt's plugin is checked before the run
        if (auto problem = meshtest::config::unknown_backend_message(v)) throw meshtest::Error(*problem);
      }))
      ->capture_default_str();
  cmd->add_option("--pjrt-plugin", pjrt_plugin,
                  "--backend pjrt: the PJRT plugin library (meshtest's own: <build>/pjrt/plugin/"
                  "libpjrt_plugin_meshtest.so; XLA's: jax_plugins/xla_*/xla_*_plugin.so)")
      ->envname("MESHTEST_PJRT_PLUGIN");
  cmd->add_option("--pjrt-option", pjrt_options,
                  "--backend pjrt: a PJRT client option NAME=VALUE (repeat it); typed by its form: true/false, "
                  "integer, integers joined by ',', decimal, else string (NAME:string=VALUE keeps a string). "
                  "meshtest's plugin takes arch=<arch>")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* add_engine_options(CLI::App* run, RunOptions& o) {
  static std::string isolation = "process";
  run->add_option("--isolation", isolation, "process: cases run in forked workers (--cases-per-worker); none: in this process (gdb)")
      ->check(CLI::IsMember({"process", "none"}))
      ->capture_default_str()
      ->each([&o](const std::string& v) { o.isolate = v == "process"; });
  run->add_option("-j,--jobs", o.jobs, "Cases run in parallel (default: the number of cores)")
      ->check(meshtest::runner::whole_number_at_least(1));
  run->add_option("--cases-per-worker", o.cases_per_worker,
                  "--isolation process: a worker runs up to N cases one after another, reusing the memory the "
                  "first faulted in, then exits (1: a new worker for every case). A case that crashes, times out, "
                  "hangs or is killed for memory takes only its worker down, and the next case starts in a new one; "
                  "so does every retry (--reruns), and a worker whose case ended as an error takes no other. A "
                  "case's peak RSS includes what its worker kept from earlier cases (so the default is 1: every "
                  "record's memory is its own case's); a worker above half of --max-memory frees that before its "
                  "next case")
      ->check(meshtest::runner::whole_number_at_least(1))
      ->capture_default_str();
  run->add_option("--timeout", o.timeout_seconds, "Default per-case deadline in seconds (0: none)")
      ->check(meshtest::runner::non_negative_number())
      ->capture_default_str();
  run->add_option("--hang-timeout", o.hang_seconds, "A worker silent (no heartbeat) this many seconds has hung")
      ->check(meshtest::runner::positive_number())
      ->capture_default_str();
  run->add_option("--max-memory", o.max_memory,
                  "Host memory budget for running cases, e.g. 16G (default: 80% of RAM); a worker above it is "
                  "killed (oom)")
      ->check([](const std::string& v) {
        const std::optional<int64_t> bytes = meshtest::runner::parse_byte_size(v);
        return bytes && *bytes > 0 ? std::string() : "expected a size > 0 such as 512M or 8G, got '" + v + "'";
      });
  run->add_option("--reruns", o.reruns, "Retry a failed case up to N times (a pass on retry is flaky)")
      ->check(meshtest::runner::whole_number_at_least(0));
  run->add_option("--shard", o.shard, "Run shard I of N (I/N, 1-based) of the selection");
  run->add_option("--run-id", o.run_id, "Id of the new run (e.g. shared by CI shards)");
  run->add_option("--store-retry-timeout", o.store_retry_seconds,
                  "Seconds to keep retrying a results store whose connection was lost (results wait in the spool); "
                  "past it the run stops with exit 6")
      ->check(meshtest::runner::non_negative_number())
      ->capture_default_str();
  run->add_option("--queue", o.queue,
                  "Pull cases from a work queue in this PostgreSQL database, shared by every process started with "
                  "the same --run-id and selection (machines, CI jobs, array tasks)");
  run->add_option("--queue-lease", o.queue_lease_seconds,
                  "Seconds a claimed case stays leased without renewal (renewed while it runs); a dead process's "
                  "cases go to others after it")
      ->check(meshtest::runner::positive_number())
      ->capture_default_str();
  run->add_option("--spool", o.spool,
                  "File where results wait while the store is unreachable (default: meshtest-spool-RUN_ID.jsonl in "
                  "the current folder)");
  // Given or not is read after parsing (RunOptions::resume).
  return run->add_option("--resume", o.resume_run_id,
                         "Continue the last unfinished run (or RUN_ID), skipping finished cases")
      ->expected(0, 1);
}

void add_compile_options(CLI::App* run, meshtest::runner::CompileSettings& o) {
  run->add_option("--serialize", o.serialize_dir,
                  "Write the IR after the frontend and after every compiler pass, per case, under DIR/<case folder>/ (see below)");
  run->add_flag("--compile-only", o.compile_only, "Compile and memory-plan every case without executing it");
  run->add_flag("!--no-compile-cache", o.use_cache, "Do not read or write the compile cache");
  run->add_option("--cache-dir", o.cache_dir, "Compile cache folder (default: $MESHTEST_CACHE_DIR, ~/.cache/meshtest)");
  static std::string weight_dtype;
  run->add_option("--experimental-weight-dtype", weight_dtype, "Matmul/conv weight dtype on the device (overrides YAML)")
      ->check(CLI::IsMember({"bf16", "bfp8"}))
      ->each([&o](const std::string& v) { o.weight_bfp8 = v == "bfp8"; });
  run->add_option("--math-fidelity", o.math_fidelity,
                  "GEMM multiplier fidelity phases: LoFi (1), HiFi2 (2), HiFi3 (3), HiFi4 (4, exact bf16) "
                  "(overrides YAML math_fidelity; default HiFi4)")
      ->check(CLI::IsMember({"LoFi", "HiFi2", "HiFi3", "HiFi4"}, CLI::ignore_case));
  run->add_flag("!--disable-fusion", o.enable_fusion, "Do not run the fuse pass (debugging)");
  static std::string stream_weights;
  run->add_option("--stream-weights", stream_weights,
                  "Make each weight when an op first needs it and free it after its last use, on the golden and "
                  "the chips (device memory is planned and accounted as before); auto: when the model's weights "
                  "exceed 1 GiB or 40% of RAM (default auto)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->each([&o](const std::string& v) {
        using meshtest::runner::WeightStreaming;
        o.stream_weights = v == "on" ? WeightStreaming::On : v == "off" ? WeightStreaming::Off : WeightStreaming::Auto;
      });
  run->add_flag("!--disable-composite-ops", o.enable_composite_ops, "Fuse only into device ops, not rms_norm/sdpa");
}

// pytest's habits at the desk: stop early, rerun what failed, the slowest cases, list without running.
void add_desk_options(CLI::App* run, RunOptions& o) {
  run->add_flag_function("-x,--exitfirst", [&o](std::int64_t) { o.maxfail = 1; },
                         "Stop after the first unexpected result (as --maxfail 1)");
  run->add_option("--maxfail", o.maxfail,
                  "Stop after N unexpected results: no case starts any more, running ones finish (0: no limit)")
      ->check(meshtest::runner::whole_number_at_least(0));
  run->add_flag("--lf,--last-failed", o.last_failed,
                "Run only the cases whose newest result on --arch in the store (last 20 runs) did not pass; "
                "all when none");
  run->add_flag("--ff,--failed-first", o.failed_first, "Run those cases first, then the rest");
  run->add_option("--durations", o.durations, "Print the N slowest cases after the run (0: all)")
      ->check(meshtest::runner::whole_number_at_least(0));
  run->add_option("--budget", o.budget,
                  "Wall-time budget, e.g. 4h, 30m, 90s: cases start longest first (by their median time in the "
                  "store on this arch and backend; one without history is assumed the median of the others) only "
                  "while they can still finish within it; running cases are never stopped for it. Those not started "
                  "are MISSING with the reason \"budget\" (exit 7 when all that ran was as expected)")
      ->check(rejects_what_throws([](const std::string& v) { meshtest::runner::parse_duration(v); }));
  run->add_flag("--collect-only", o.collect_only, "List the cases this command would run (as `collect`), run nothing");
  run->add_flag("--tree", o.collect_view.tree, "--collect-only: group the cases by loader folder");
}

}  // namespace

int main(int argc, char** argv) {
  meshtest::runner::ensure_passive_openmp(argv);
  // Named, not argv[0]: the usage lines read "meshtest run ..." wherever the binary is (docs/reference/cli.md).
  CLI::App app{"meshtest: runs model test matrices on simulated accelerator meshes and checks them against a CPU "
               "reference.",
               "meshtest"};
  app.formatter(std::make_shared<meshtest::runner::HelpFormatter>());  // before the subcommands: they copy it
  // One statement of the exit codes, shown by `meshtest --help` and `meshtest run --help`.
  const char* const exit_status =
      "Exit status: 0 all as expected; 1 unexpected results (for --resume: of the whole run on this arch and "
      "shard, cases without a result included); 2 usage, config or selection error (e.g. an unknown -m marker), or a report that could not be written; "
      "5 the selection matches no case; 6 the results store stayed unreachable past --store-retry-timeout "
      "(resume with --resume RUN_ID); 7 --budget left cases not started (MISSING, reason \"budget\"), all that ran "
      "as expected; 130 interrupted by SIGINT, 143 by SIGTERM (reports written, run marked "
      "interrupted; resume with --resume).";
  app.footer(exit_status);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("meshtest ") + MESHTEST_VERSION + "\nOpenMP (oneDNN) wait policy: " +
                                        meshtest::runner::openmp_wait_policy());
  bool check_args = false;
  app.add_flag("--check-args", check_args,
               "Parse the whole command line and exit: 0 when it parses, 2 with the usage error (or "
               "MESHTEST_PARSE_ONLY=1); CI checks its workflow files with it");

  CommonOptions collect_opts;
  meshtest::runner::CollectView collect_view;
  auto* collect = app.add_subcommand(
      "collect", "List the selected test ids, each with its config status, markers and reason (-q: ids only)");
  add_selection_options(collect, collect_opts);
  collect->add_flag("--tree", collect_view.tree, "Group the cases by loader folder");
  meshtest::runner::EstimateOptions estimate_opts;
  collect->add_flag("--estimate", estimate_opts.estimate,
                    "Print the selection's expected wall time on -j workers (from the store's history on --arch and "
                    "--backend) and how many cases had no history (assumed the median of the others), not the list");
  collect->add_option("-j,--jobs", estimate_opts.jobs, "--estimate: workers (default: the number of cores)")
      ->check(meshtest::runner::whole_number_at_least(1));
  collect->add_option("--db", estimate_opts.db, "--estimate: the results store whose history it reads")
      ->capture_default_str();
  collect->add_option("--backend", collect_opts.backend,
                      "Backend whose backend_overrides apply: simulated, pjrt or pjrt:<platform>")
      ->capture_default_str();
  collect->add_flag("--emitc", collect_opts.emitc, "Apply emitc_overrides, as `run --emitc` does");
  meshtest::runner::add_changed_option(collect, collect_opts);

  CommonOptions run_common;
  RunOptions run_opts;
  std::string save_tensors_when = "failed";
  auto* run = app.add_subcommand("run", "Run the selected cases and report");
  add_selection_options(run, run_common);
  meshtest::runner::add_changed_option(run, run_common);
  run->add_option("--junitxml", run_opts.junitxml, "Write a JUnit XML report to this file");
  run->add_option("--json", run_opts.json,
                  "Write JSON lines to this file: one result per line, as each finishes (\"-\": stdout, the console "
                  "then goes to stderr)");
  run->add_option("--db", run_opts.db, "Results store: SQLite file or postgresql:// URL (\"\" to disable)")
      ->capture_default_str();
  run->footer(std::string(exit_status) + "\n\n" + meshtest::runner::kCaseFolderRule + ".");
  int optimization_level = meshtest::backend::DeviceSettings{}.optimization_level;
  run->add_option("--optimization-level", optimization_level, "Compiler optimization level")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  run->add_flag("--force-run", run_opts.force_run, "Also run NOT_SUPPORTED_SKIP cases");
  run->add_flag("!--no-strict-xfail", run_opts.strict_xfail, "An xfail case that passes is not an error");
  run->add_option("--optimizer-step", run_opts.optimizer_step,
                  "Training cases also apply one SGD step (sgd:LR) on both sides and compare the updated weights")
      ->check(rejects_what_throws([](const std::string& v) { meshtest::runner::parse_optimizer_step(v); }));
  CLI::Option* save_tensors = run->add_option("--save-tensors", run_opts.save_tensors_dir,
                  "Write each failed case's inputs, golden and device outputs (training: and gradients) as "
                  "safetensors under DIR/<case folder>/ (see below)");
  run->add_option("--save-tensors-when", save_tensors_when,
                  "Which cases --save-tensors writes: failed (the default) or always (every case that ran, passed "
                  "and xfailed ones too, e.g. to compare a passing model's outputs with another framework's)")
      ->check(CLI::IsMember({"failed", "always"}))
      ->needs(save_tensors)
      ->capture_default_str()
      ->each([&run_opts](const std::string& v) { run_opts.save_tensors_always = v == "always"; });
  run->add_flag("--log-memory", run_opts.log_memory,
                "Record each case's peak host memory (RSS) per phase: load, golden, compile, execute, compare "
                "(record group peak_host_rss_by_phase; device memory: the backend's peak for execute)");
  run->add_flag("--perf{5}", run_opts.perf_iterations,
                "Perf mode for every case (--perf=N: N timed executions, 1 to 1000, default 5, after one warm-up): "
                "records the median host time (the device's own time on --backend pjrt), the modelled device time "
                "and samples/s. Cases marked `perf` always run so")
      ->check(CLI::Range(1, 1000));
  run->add_option("--batch", run_opts.perf_batches,
                  "Perf mode's batch sweep for inference cases: 1,2,4,... — each batch's latency and samples/s "
                  "(modelled on the simulated chip, the device's own time on a PJRT plugin), until the device runs "
                  "out of memory or throughput stops rising by 5% (record field perf_batch_sweep)")
      ->check(rejects_what_throws([](const std::string& v) { meshtest::runner::parse_batches(v); }));
  run->add_option("--op-golden", run_opts.op_golden_dir,
                  "Op-level golden: compare every element of every device op with the CPU reference of that one op "
                  "on the device's own operands; per-op report DIR/<case folder>/op_golden.jsonl, the first op past "
                  "the per-op thresholds in the console and the record");
  run->add_flag("--op-golden-check", run_opts.op_golden_check,
                "Op-level golden as a check for every case (as YAML op_golden: true): a case fails when a device "
                "op's local PCC or scale is past op_required_pcc / op_scale_tolerance; ops of more than 65,536 "
                "elements are compared on a sample of their elements, rows or channels (every element with "
                "--op-golden DIR)");
  add_backend_options(run, run_opts.backend, run_opts.pjrt_plugin, run_opts.pjrt_options);
  run->add_flag("--emitc", run_opts.codegen.check,
                "Also build each executed case's program as generated C++ (as `codegen` writes it, cached by "
                "program hash under the cache folder), run it, and require its outputs to equal the device's "
                "(bit for bit; by PCC where YAML codegen_assert_exact / emitpy_assert_exact is false); the cases' "
                "emitc_overrides apply");
  run->add_option("--sdk-prefix", run_opts.codegen.sdk_prefix,
                  "Installed meshtest package the generated code builds against (default: $MESHTEST_SDK_PREFIX, "
                  "the install this meshtest runs from, or <build>/sdk)");
  CLI::Option* resume = add_engine_options(run, run_opts);
  add_compile_options(run, run_opts.compile);
  add_desk_options(run, run_opts);

  CommonOptions codegen_common;
  RunOptions codegen_opts;
  auto* codegen = app.add_subcommand(
      "codegen",
      "Run one case and write its compiled device program as a standalone C++ program: --out DIR gets main.cpp "
      "(one line per device op against the installed device-kernel API), CMakeLists.txt and tensors.safetensors");
  add_selection_options(codegen, codegen_common);
  codegen->add_option("--out", codegen_opts.codegen.out_dir, "Folder for the generated program")->required();
  add_compile_options(codegen, codegen_opts.compile);

  std::string merge_output, merge_run_id;
  std::vector<std::string> merge_inputs;
  auto* merge = app.add_subcommand("merge", "Combine the result stores of CI shards into one run");
  merge->add_option("output", merge_output, "Store to merge into (created if missing)")->required();
  merge->add_option("inputs", merge_inputs, "Shard stores; the most recent run of each is taken")->required();
  merge->add_option("--run-id", merge_run_id, "Id of the merged run (default: the first input's run id)");
  meshtest::runner::MutateOptions mutate_opts{meshtest::runner::kDefaultResultsStore, {}, {}, {}};
  auto* mutate = app.add_subcommand(
      "mutate",
      "Run the selection once without and once per catalogued device mutant (MESHTEST_MUTANT); print the kill "
      "matrix and mutation score. Other options and the selection go to each `meshtest run`");
  mutate->allow_extras();
  mutate->add_option("--db", mutate_opts.db, "SQLite results database every run is stored in")->capture_default_str();
  mutate->add_option("--mutants", mutate_opts.mutants, "Only these mutants (comma-separated ids)")->delimiter(',');
  mutate->add_option("--kill-matrix", mutate_opts.kill_matrix_json, "Write the kill matrix as JSON to this file");
  CommonOptions export_common;
  RunOptions export_opts;
  std::string export_format;
  auto* export_cmd = app.add_subcommand(
      "export",
      "Write one case's graph (the one it compiles: inference, training's joint graph, an LLM phase) in another "
      "format: --format stablehlo gives DIR/<case folder>.mlir (StableHLO text, shard specs as mhlo.sharding) and "
      "DIR/<case folder>.safetensors (its weights, @main's arguments after the inputs)");
  add_selection_options(export_cmd, export_common);
  export_cmd->add_option("--format", export_format, "Output format")->required()->check(CLI::IsMember({"stablehlo"}));
  export_cmd->add_option("--out", export_opts.compile.stablehlo_export_dir, "Output folder")->required();
  export_cmd->add_flag("--inline-weights", export_opts.compile.stablehlo_inline_weights,
                       "Weights as stablehlo.constant in the module (no .safetensors)");
  export_cmd->add_flag("--composites", export_opts.compile.stablehlo_composites,
                       "Fused ops (gelu, layer_norm, rms_norm, sdpa) as tt-xla's stablehlo.composite ops");
  CommonOptions ops_common;
  meshtest::runner::OpsOptions ops_opts;
  auto* ops = app.add_subcommand(
      "ops",
      "Op-by-op sweep: the ops of IR files or folders, or of the selected cases' models, de-duplicated by op, "
      "shapes, dtype and attributes, each compiled and run alone against the CPU reference; prints and stores the "
      "table and where each op was seen, saves failing ops as IR text. Folders are searched for *.mtir (of a "
      "--serialize dump, its NN-frontend.mtir stage) and StableHLO *.mlir (every op of every function, e.g. "
      "tt-xla --dump-irs' irs/shlo_*.mlir)");
  add_selection_options(ops, ops_common);  // a positional that names a file or folder is an IR path
  ops->get_option("ids")->description(
      "Test ids, or IR files and folders to sweep: *.mtir (meshtest IR) and *.mlir (StableHLO), folders searched "
      "recursively");
  ops->add_option("--only", ops_opts.only, "Only these ops (names, comma-separated)")->delimiter(',');
  ops->add_option("--skip", ops_opts.skip, "Not these ops (names, comma-separated)")->delimiter(',');
  ops->add_flag("--compile-only", ops_opts.compile_only, "Compile each op; run nothing");
  ops->add_option("--out", ops_opts.out_dir, "Folder for ops.txt, ops.jsonl and failing/")->capture_default_str();
  add_backend_options(ops, ops_opts.backend, ops_opts.pjrt_plugin, ops_opts.pjrt_options);
  CommonOptions coverage_common;
  meshtest::runner::CoverageOptions coverage_opts;
  auto* coverage = app.add_subcommand(
      "coverage",
      "Which device kernel variants (fused attention with or without a mask, GEMM fidelities, bfp8_b weights, "
      "collectives, backward kernels, ...) and compiler passes the selected cases reach, each with its cases, and "
      "those none reaches (with the reason where one is declared); the selection is compiled, not executed. "
      "Exit 1 when a path is unreached without a reason");
  add_selection_options(coverage, coverage_common);
  coverage->add_option("--results", coverage_opts.results,
                       "Read the cases from a JSON lines file of an earlier run (`run --json FILE`, --compile-only or "
                       "not) instead of compiling a selection; repeat it: several arches and selections add up")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  coverage->add_option("--require", coverage_opts.require,
                       "Which unreached paths fail: all, or single-chip (paths only a mesh reaches may stay "
                       "unreached)")
      ->check(CLI::IsMember({"all", "single-chip"}))
      ->capture_default_str();
  coverage->add_option("--cache-dir", coverage_opts.compile.cache_dir,
                       "Compile cache folder (default: $MESHTEST_CACHE_DIR, ~/.cache/meshtest)");
  const meshtest::runner::ReportCommands report_commands(app);  // report, history, diff, flaky, promote
  const meshtest::runner::ConfigCommands config_commands(app);  // validate-config, show
  const meshtest::runner::TriageCommand triage_command(app);    // triage
  const meshtest::runner::ChangedCommand changed_command(app);  // changed --base REF
  meshtest::runner::add_usage_notes(app);  // every subcommand's positional arguments and an example
  meshtest::runner::add_help_all_flags(app);
  // -q/-v/-vv and --color on the app and on every subcommand, wherever it is registered.
  meshtest::runner::ConsoleHabits habits;
  meshtest::runner::add_console_habits(app, habits);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << meshtest::runner::explain_parse_error(app, e, argc, argv) << "Run with --help for more information.\n";
    return 2;
  }
  run_opts.resume = resume->count() > 0;
  if (check_args || std::string(std::getenv("MESHTEST_PARSE_ONLY") ? std::getenv("MESHTEST_PARSE_ONLY") : "") == "1") {
    std::cout << "meshtest: the arguments parse\n";
    return 0;
  }
  try {
    meshtest::check_mutant_environment();
  } catch (const meshtest::Error& e) {
    std::cerr << "meshtest: " << e.what() << "\n";
    return 2;
  }

  // Before anything logs or forks: with `--json -` only the JSON lines reach stdout.
  if (*run && run_opts.json == "-") run_opts.json_stdout_fd = meshtest::runner::reserve_stdout_for_json();
  if (const char* level = std::getenv("MESHTEST_LOG_LEVEL")) spdlog::set_level(spdlog::level::from_str(level));
  if (habits.verbosity >= 2) spdlog::set_level(spdlog::level::debug);
  run_opts.console = habits.style(meshtest::runner::is_terminal(run_opts.json == "-" ? 2 : 1));
  collect_view.verbosity = run_opts.collect_view.verbosity = habits.verbosity;
  coverage_opts.verbosity = habits.verbosity;
  for (CommonOptions* o : {&collect_opts, &run_common, &codegen_common, &export_common, &ops_common, &coverage_common}) {
    o->each_stale_id = habits.verbosity >= 1;
  }
  spdlog::set_pattern("[%l] %v");

  // CLI first, then YAML: only an explicit --optimization-level overrides the YAML field.
  if (run->count("--optimization-level") > 0) run_opts.compile.optimization_level = optimization_level;
  for (int i = 0; i < argc; ++i) run_opts.argv += (i ? " " : "") + std::string(argv[i]);
  try {
    if (*collect) return meshtest::runner::cmd_collect(collect_opts, collect_view, estimate_opts);
    if (*run) {
      if (const int rc = meshtest::runner::resolve_run_backend(run_common, run_opts); rc != 0) return rc;
      // Before anything starts a thread pool: workers are forked from this pristine copy.
      std::unique_ptr<meshtest::runner::ForkServer> server;
      if (run_opts.isolate) server = meshtest::runner::start_worker_server(run_common, run_opts);
      return meshtest::runner::cmd_run(run_common, run_opts, server.get());
    }
    if (*codegen) return meshtest::runner::cmd_codegen(codegen_common, codegen_opts);
    if (*export_cmd) return meshtest::runner::cmd_export(export_common, export_opts);
    if (*mutate) {
      mutate_opts.run_args = mutate->remaining();
      return meshtest::runner::cmd_mutate(mutate_opts);
    }
    if (*ops) return meshtest::runner::cmd_ops(ops_common, ops_opts);
    if (*coverage) return meshtest::runner::cmd_coverage(coverage_common, coverage_opts);
    if (*merge) return meshtest::runner::cmd_merge(merge_output, merge_inputs, merge_run_id);
    if (auto status = report_commands.run()) return *status;
    if (auto status = config_commands.run()) return *status;
    if (auto status = triage_command.run()) return *status;
    if (auto status = changed_command.run(habits.verbosity)) return *status;
  } catch (const std::exception& e) {
    std::cerr << "meshtest: internal error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
