// collect and run: discovery -> matrix -> selection -> (pipeline -> reports).
#include "runner/cli/commands.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "config/backend_names.h"
#include "config/test_config.h"
#include "core/error.h"
#include "discovery/discovery.h"
#include "reports/json_lines.h"
#include "reports/junit_xml.h"
#include "reports/result_store.h"
#include "reports/spooled_store.h"
#include "reports/work_queue.h"
#include "runner/cli/changed_command.h"
#include "runner/cli/last_failed.h"
#include "runner/cli/run_budget.h"
#include "runner/pipeline/backends.h"
#include "runner/pipeline/batch_sweep.h"
#include "runner/collection/collection.h"
#include "runner/collection/matrix.h"
#include "runner/engine/console_report.h"
#include "runner/engine/process_pool.h"
#include "runner/engine/process_stats.h"
#include "runner/engine/queue_source.h"
#include "runner/engine/run_loop.h"
#include "runner/engine/shard.h"
#include "runner/engine/stop_signals.h"
#include "runner/engine/worker_inprocess.h"
#include "runner/engine/worker_main.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/training_steps.h"

#ifndef MESHTEST_GIT_SHA
#define MESHTEST_GIT_SHA "unknown"
#endif

namespace meshtest::runner {

namespace {

// Config, discovery, matrix and selection (runner/collection/collection.h),
// narrowed by --changed; problems are printed to stderr and give nullptr.
std::unique_ptr<Collected> collect(const CommonOptions& o) {
  auto c = collect_cases(o, &std::cerr);
  if (c && !keep_changed_cases(*c, o, std::cerr)) return nullptr;
  return c;
}

std::string new_run_id() {
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
  std::string ts = reports::utc_now_iso8601();  // 2026-11-22T03:15:00.123Z
  std::string compact;
  for (char ch : ts.substr(0, 19)) {
    if (ch != '-' && ch != ':') compact += ch;
  }
  return compact + "Z-" + suffix;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// An empty selection is an error of its own (pytest's exit 5): a typo in -m must not read as a pass.
bool selection_is_empty(const Collected& c, const CommonOptions& o) {
  if (!c.selection.selected.empty()) return false;
  std::cerr << "error: no test case matches the selection (-k '" << o.selection.keyword << "' -m '"
            << o.selection.marker << "', " << o.selection.ids.size() << " id(s), arch " << o.arch << "; "
            << c.cases.size() << " case(s) collected): nothing to run (exit " << kExitNoTestsSelected << ")\n";
  return true;
}

}  // namespace

namespace {

size_t worker_count(size_t jobs) {
  return jobs > 0 ? jobs : static_cast<size_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

// collect --estimate: the history of the store, when there is one.
int print_selection_estimate(const Collected& c, const CommonOptions& o, const EstimateOptions& e) {
  std::unique_ptr<reports::ResultStore> store;
  if (!e.db.empty() && (reports::is_postgres_url(e.db) || std::filesystem::exists(e.db))) {
    store = reports::open_store(e.db);
  }
  print_estimate(std::cout, c.selection.selected, budget_history(store.get(), o.arch, o.backend),
                 worker_count(e.jobs), o.arch, o.backend);
  return 0;
}

}  // namespace

int cmd_collect(const CommonOptions& o, const CollectView& view, const EstimateOptions& estimate) {
  auto c = collect(o);
  if (!c) return 2;
  if (nothing_changed(*c, o)) return 0;
  if (selection_is_empty(*c, o)) return kExitNoTestsSelected;
  if (estimate.estimate) return print_selection_estimate(*c, o, estimate);
  print_collection(std::cout, std::cerr, c->selection.selected, c->cases.size(), c->selection.deselected, view);
  return 0;
}

namespace {

// The collection of a command that runs cases: backend_overrides resolve for
// the backend the cases run on (`run --backend`, for a PJRT plugin with its
// platform once resolve_run_backend has probed it), emitc_overrides apply
// when the run checks generated code (`run --emitc`).
CommonOptions collection_options(const CommonOptions& o, const RunOptions& ro) {
  CommonOptions as_run = o;
  as_run.backend = ro.overrides_backend.empty() ? ro.backend : ro.overrides_backend;
  as_run.emitc = ro.codegen.check;
  return as_run;
}

PipelineOptions pipeline_options(const CommonOptions& o, const RunOptions& ro) {
  PipelineOptions popts;
  popts.arch = runtime::arch_profile(o.arch);
  popts.chip = popts.arch.chip;
  popts.backend = std::string(config::backend_base(ro.backend));
  popts.pjrt_plugin = ro.pjrt_plugin;
  popts.pjrt_options = ro.pjrt_options;
  popts.compile = ro.compile;
  popts.force_run = ro.force_run;
  popts.strict_xfail = ro.strict_xfail;
  if (!ro.optimizer_step.empty()) popts.sgd_learning_rate = parse_optimizer_step(ro.optimizer_step);
  popts.save_tensors_dir = ro.save_tensors_dir;
  popts.save_tensors_always = ro.save_tensors_always;
  popts.log_memory = ro.log_memory;
  popts.perf_iterations = ro.perf_iterations;
  if (!ro.perf_batches.empty()) popts.perf_batches = parse_batches(ro.perf_batches);
  popts.op_golden_dir = ro.op_golden_dir;
  popts.op_golden_check = ro.op_golden_check;
  popts.codegen = ro.codegen;
  if (popts.codegen.cache_dir.empty()) popts.codegen.cache_dir = ro.compile.cache_dir;
  return popts;
}

reports::RunInfo describe_run(const CommonOptions& o, const RunOptions& ro) {
  reports::RunInfo run;
  run.run_id = ro.run_id.empty() ? new_run_id() : ro.run_id;
  run.git_sha = MESHTEST_GIT_SHA;
  run.host = host_name();
  run.argv = ro.argv;
  run.arch = o.arch;
  run.selection = "-k '" + o.selection.keyword + "' -m '" + o.selection.marker + "'";
  run.versions = std::string("meshtest ") + MESHTEST_VERSION;
  run.started_at = reports::utc_now_iso8601();
  return run;
}

LoopOptions loop_options(const RunOptions& ro) {
  LoopOptions lo;
  lo.jobs = worker_count(ro.jobs);
  lo.memory_budget = static_cast<int64_t>(0.8 * static_cast<double>(physical_memory_bytes()));
  if (!ro.max_memory.empty()) {
    const std::optional<int64_t> bytes = parse_byte_size(ro.max_memory);
    if (!bytes) throw ParseError("--max-memory '" + ro.max_memory + "': expected a size such as 512M or 8G");
    lo.memory_budget = *bytes;
  }
  lo.max_rss_bytes = lo.memory_budget;
  lo.reruns = ro.reruns;
  lo.timeout_seconds = ro.timeout_seconds;
  lo.hang_seconds = ro.hang_seconds;
  return lo;
}

// --resume: keeps the cases `run_id` still owes a final result: never
// recorded, or whose last attempt failed with --reruns left (they go on at
// the next attempt, noted in `first_attempt`).
std::vector<const TestCase*> unfinished_cases(const std::vector<const TestCase*>& cases,
                                              reports::ResultStore& store, const std::string& run_id,
                                              const std::string& arch, int reruns,
                                              std::map<std::string, int>& first_attempt, std::ostream& console) {
  const std::map<std::string, reports::LastAttempt> last = store.last_attempts(run_id, arch);
  std::vector<const TestCase*> out;
  size_t retried = 0;
  for (const TestCase* t : cases) {
    const auto it = last.find(t->id);
    if (it == last.end()) {
      out.push_back(t);
    } else if (should_retry(it->second.outcome, it->second.attempt, reruns)) {
      first_attempt[t->id] = it->second.attempt + 1;
      out.push_back(t);
      ++retried;
    }
  }
  console << "resuming run " << run_id << ": " << (cases.size() - out.size()) << " of " << cases.size()
          << " case(s) already have a final result";
  if (retried > 0) console << ", " << retried << " go on to their next attempt";
  console << "\n";
  return out;
}

// Every shard records the whole selection of its arch, each case with its
// shard (all shards compute the same split), so the cases of a shard that
// never started are known, and reported missing.
void record_whole_selection(reports::ResultStore& store, const std::string& run_id, const std::string& arch,
                            const std::vector<const TestCase*>& selected, const std::string& shard_text,
                            const std::map<std::string, reports::CaseHistory>& history) {
  const int count = shard_text.empty() ? 1 : parse_shard(shard_text).count;
  const std::vector<int> shard = assign_shards(selected, count, history);
  std::vector<std::vector<std::string>> ids(static_cast<size_t>(count));
  for (size_t i = 0; i < selected.size(); ++i) ids[static_cast<size_t>(shard[i])].push_back(selected[i]->id);
  for (int k = 0; k < count; ++k) {
    const std::string label = shard_text.empty() ? "" : std::to_string(k + 1) + "/" + std::to_string(count);
    store.record_selection(run_id, arch, label, ids[static_cast<size_t>(k)]);
  }
}

// The outcome of the whole run on this arch for `asked` (the shard's cases),
// from the store: resuming a run that already had failures is not a pass.
// Counts unexpected final results and cases with no result at all.
size_t stored_unexpected(reports::ResultStore& store, const std::string& run_id, const std::string& arch,
                         const std::vector<const TestCase*>& asked) {
  std::map<std::string, reports::CaseResult> last;  // final attempt per case
  for (reports::CaseResult& r : store.run_results(run_id)) {
    if (r.arch == arch) last[r.test_id] = std::move(r);  // ordered by attempt: the last wins
  }
  size_t unexpected = 0;
  for (const TestCase* t : asked) {
    const auto it = last.find(t->id);
    if (it == last.end() || is_unexpected(it->second)) ++unexpected;
  }
  return unexpected;
}

// The run's last word to its store and the exit status: finished, interrupted
// by a signal (128 + signal), or the store given up on (kExitStoreUnreachable).
int finish_run_in_store(reports::SpooledStore* store, const reports::RunInfo& run, int signal_number,
                        std::string store_failure, const LoopResult& result, size_t cases, const std::string& db,
                        std::ostream& console) {
  if (store && store_failure.empty()) {
    try {
      if (signal_number != 0) store->mark_interrupted(run.run_id, run.finished_at, signal_name(signal_number));
      else store->finish_run(run.run_id, run.finished_at);
    } catch (const reports::StoreUnreachable& e) {
      store_failure = e.what();
    }
  }
  const std::string resume = "run the same command with --resume " + run.run_id;
  if (!store_failure.empty()) {
    std::cerr << "meshtest: " << store_failure << "\n"
              << "meshtest: " << store->spooled() << " result(s) not yet stored are kept in " << store->spool_path()
              << "\n"
              << "meshtest: when the store is back, " << resume
              << ": it stores the spooled results first, then runs the cases still owed\n";
    return kExitStoreUnreachable;
  }
  if (signal_number != 0) {
    std::cerr << "meshtest: interrupted by " << signal_name(signal_number) << " after "
              << result.final_results.size() << " of " << cases << " case(s)"
              << (store ? "; the run is marked interrupted in the store" : "") << "\n"
              << "meshtest: to finish it, " << resume << "\n";
    return 128 + signal_number;
  }
  if (store) console << "results stored in " << db << " (run " << run.run_id << ")\n";
  return result.unexpected > 0 ? 1 : 0;
}

// --lf keeps the cases that failed last time on this arch, --ff runs them
// first; with none recorded, the whole selection runs (as pytest does).
std::vector<const TestCase*> apply_last_failed(const std::vector<const TestCase*>& cases, reports::ResultStore* store,
                                               const CommonOptions& o, const RunOptions& ro, LoopOptions& lo,
                                               std::ostream& console) {
  if (!ro.last_failed && !ro.failed_first) return cases;
  const char* flag = ro.last_failed ? "--lf" : "--ff";
  if (!store) throw Error(std::string(flag) + " reads the last failures from the results store: give --db");
  const std::set<std::string> failed = last_failed_ids(*store, o.arch);
  std::vector<const TestCase*> kept;
  for (const TestCase* t : cases) {
    if (failed.count(t->id)) kept.push_back(t);
  }
  if (kept.empty()) {
    console << flag << ": no case of this selection failed in the last " << kLastFailedRuns << " run(s) on " << o.arch
            << ": running all " << cases.size() << "\n";
    return cases;
  }
  console << flag << ": " << kept.size() << " case(s) failed last time on " << o.arch
          << (ro.last_failed ? " (" + std::to_string(cases.size() - kept.size()) + " deselected)" : ", run first")
          << "\n";
  if (ro.last_failed) return kept;
  lo.run_first.insert(failed.begin(), failed.end());
  return cases;
}

}  // namespace

std::unique_ptr<ForkServer> start_worker_server(const CommonOptions& o, const RunOptions& ro) {
  return ForkServer::start([o, ro]() -> ForkServer::WorkerMain {
    // The run's own collection already said what there is to say (warnings, debug lines).
    const spdlog::level::level_enum level = spdlog::get_level();
    spdlog::set_level(std::max(level, spdlog::level::info));
    std::shared_ptr<Collected> c(collect_cases(collection_options(o, ro), nullptr).release());
    spdlog::set_level(level);
    auto by_id = std::make_shared<std::map<std::string, const TestCase*>>();
    if (c) {
      for (const TestCase& t : c->cases) (*by_id)[t.id] = &t;
    }
    const PipelineOptions popts = pipeline_options(o, ro);
    return [c, by_id, popts](const std::string& payload, int status_fd) {
      const WorkerRequest request = decode_worker_request(payload);
      auto it = by_id->find(request.test_id);
      if (it == by_id->end()) {
        std::cerr << "meshtest worker: no case has the id '" << request.test_id << "'\n";
        return 3;
      }
      return run_case_in_worker(*it->second, popts, request, status_fd);
    };
  });
}

// Throws Error when `path`'s folder does not exist, so a run does not find
// out only at its end that its report cannot be written.
static void check_output_folder(const std::string& path, const std::string& option) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
    throw Error(option + " '" + path + "': folder '" + folder.string() + "' does not exist");
  }
}

reports::FailureClasses load_run_failure_classes(const CommonOptions& o,
                                                 std::vector<config::Diagnostic>& diagnostics) {
  const std::string path = reports::find_failure_reasons(resolved_config_dir(o), shipped_config_dir());
  if (path.empty()) return {};
  return reports::load_failure_classes(path, diagnostics);
}

int resolve_run_backend(const CommonOptions& o, RunOptions& ro) {
  if (auto problem = target_problem(collection_options(o, ro))) {  // as collection says it
    std::cerr << *problem << "\n";
    return 2;
  }
  const PipelineOptions popts = pipeline_options(o, ro);
  try {  // a plugin that does not load stops the run before any case
    ro.overrides_backend =
        resolve_backend(ro.backend, {popts.chip, popts.arch.chips, "", popts.pjrt_plugin, popts.pjrt_options});
  } catch (const std::exception& e) {
    std::cerr << "meshtest: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

int cmd_run(const CommonOptions& o, const RunOptions& ro, ForkServer* server) {
  auto c = collect(collection_options(o, ro));
  if (!c) return 2;
  std::vector<config::Diagnostic> class_problems;
  const reports::FailureClasses failure_classes = load_run_failure_classes(o, class_problems);
  for (const config::Diagnostic& d : class_problems) std::cerr << d.to_string() << "\n";
  if (const size_t errors = config::count_errors(class_problems); errors > 0) {
    std::cerr << "error: " << errors << " problem(s) in failure classes '" << failure_classes.file << "'\n";
    return 2;
  }
  if (nothing_changed(*c, o)) return 0;
  if (selection_is_empty(*c, o)) return kExitNoTestsSelected;
  // `--json -` puts the JSON lines on stdout: everything else goes to stderr.
  const bool json_to_stdout = ro.json == "-";
  std::ostream& console = json_to_stdout ? std::cerr : std::cout;
  const int console_fd = json_to_stdout ? STDERR_FILENO : STDOUT_FILENO;

  const PipelineOptions popts = pipeline_options(o, ro);
  reports::RunInfo run = describe_run(o, ro);
  std::unique_ptr<reports::SpooledStore> store;
  std::unique_ptr<reports::JsonLinesWriter> json_lines;  // --json
  std::map<std::string, reports::CaseHistory> history;
  std::vector<const TestCase*> cases = c->selection.selected;
  std::vector<const TestCase*> asked;  // this shard's cases, before --resume drops the finished ones
  bool resuming = false;
  std::unique_ptr<reports::WorkQueue> queue;  // --queue
  std::map<std::string, reports::CaseHistory> budget_durations;  // --budget: this arch's and backend's history
  LoopOptions lo;
  try {
    if (ro.codegen.check) find_sdk_prefix(ro.codegen);  // the installed package the generated code needs
    lo = loop_options(ro);
    std::unique_ptr<reports::ResultStore> opened;
    if (!ro.db.empty()) opened = reports::open_store(ro.db);
    std::optional<reports::RunInfo> resumed;
    if (ro.resume) {
      if (!opened) throw Error("--resume needs a results database (--db)");
      const std::optional<std::string> id =
          ro.resume_run_id.empty() ? opened->last_unfinished_run() : std::optional<std::string>(ro.resume_run_id);
      if (!id) throw Error("--resume: '" + ro.db + "' has no unfinished run");
      resumed = opened->find_run(*id);
      if (!resumed) throw Error("--resume: '" + ro.db + "' has no run '" + *id + "'");
      run.run_id = *id;
      resuming = true;
    }
    const std::string spool = ro.spool.empty() ? "meshtest-spool-" + run.run_id + ".jsonl" : ro.spool;
    if (resumed) {
      if (const size_t n = reports::replay_spool(*opened, spool, run.run_id); n > 0) {
        console << "stored " << n << " result(s) left in the spool " << spool << "\n";
      }
    }
    if (!ro.queue.empty() && (ro.run_id.empty() || ro.resume || !ro.shard.empty())) {
      throw Error("--queue needs the --run-id every process shares, and takes neither --resume nor --shard "
                  "(start the same command again to go on with a queue run)");
    }
    if (!ro.queue.empty()) queue = std::make_unique<reports::WorkQueue>(ro.queue);
    cases = apply_last_failed(cases, opened.get(), o, ro, lo, console);
    // A resumed run, or a shard joining a run id that exists, sees the
    // history the run started with, so every --shard picks from the same split.
    std::optional<reports::RunInfo> resumed_or_joined;
    if (opened && !resumed && !ro.run_id.empty()) resumed_or_joined = opened->find_run(run.run_id);
    if (resumed) resumed_or_joined = resumed;
    if (opened) history = opened->case_history(5, resumed_or_joined ? resumed_or_joined->started_at : "");
    if (ro.collect_only) {  // what would run, recording nothing
      if (!ro.shard.empty()) cases = select_shard(cases, parse_shard(ro.shard), history);
      print_collection(std::cout, std::cerr, cases, c->cases.size(), c->cases.size() - cases.size(), ro.collect_view);
      return 0;
    }
    if (opened) {
      opened->begin_run(run);  // joins an existing run id: adds this arch, marks it unfinished until finish_run
      record_whole_selection(*opened, run.run_id, o.arch, cases, ro.shard, history);
    }
    if (!ro.shard.empty()) cases = select_shard(cases, parse_shard(ro.shard), history);
    asked = cases;
    if (resumed) cases = unfinished_cases(cases, *opened, run.run_id, o.arch, ro.reruns, lo.first_attempt, console);
    if (!ro.budget.empty()) {
      if (queue) throw Error("--budget decides what this process starts: it takes no --queue");
      budget_durations = budget_history(opened.get(), o.arch, popts.backend,
                                        resumed_or_joined ? resumed_or_joined->started_at : "");
      plan_budget(ro.budget, cases, budget_durations, lo, console);
    }
    if (opened) {
      store = std::make_unique<reports::SpooledStore>(
          std::move(opened), [url = ro.db] { return reports::open_store(url); }, spool, ro.store_retry_seconds);
    }
    if (!ro.json.empty()) {
      json_lines = std::make_unique<reports::JsonLinesWriter>(
          ro.json, ro.json_stdout_fd >= 0 ? ro.json_stdout_fd : STDOUT_FILENO);
    }
    lo.maxfail = ro.maxfail;
    lo.failure_classes = &failure_classes;
    if (!ro.junitxml.empty()) check_output_folder(ro.junitxml, "--junitxml");
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  console << "meshtest run " << run.run_id << ": " << cases.size() << " case(s) on " << o.arch;
  if (!ro.shard.empty()) console << " (shard " << ro.shard << ")";
  if (queue) console << " (shared queue)";
  console << (server ? ", " + std::to_string(lo.jobs) + " worker(s)" : ", in-process") << "\n";
  const SteadyClock clock;
  std::unique_ptr<CaseExecutor> executor;
  if (server) executor = std::make_unique<ProcessPool>(*server, popts, clock, ro.cases_per_worker);
  else executor = std::make_unique<InProcessExecutor>(popts);
  auto progress = make_progress(console, console_fd, cases.size(), clock, ro.console);
  const StopSignals signals;
  std::string store_failure;  // set when the store stayed unreachable past the bound
  lo.stop_requested = [&] { return signals.received() != 0 || !store_failure.empty(); };
  const double start = clock.now_seconds();
  const auto record = [&](const reports::CaseResult& r) {
    if (json_lines) json_lines->write(run.run_id, r);
    if (!store) return;
    try {
      store->record(run.run_id, r);
    } catch (const reports::StoreUnreachable& e) {
      store_failure = e.what();
    }
  };
  LoopResult result;
  if (queue) {
    QueueSource source(*queue, run.run_id, cases, history, ro.queue_lease_seconds);
    result = run_jobs(source, *executor, lo, *progress, record);
  } else {
    result = run_cases(cases, ro.budget.empty() ? history : budget_durations, *executor, lo, *progress, record);
  }
  executor.reset();  // stops the workers of a stopped run
  const double seconds = clock.now_seconds() - start;
  run.finished_at = reports::utc_now_iso8601();
  const int signal_number = signals.received();
  std::string report_failure;  // the run is still finished in the store, then exits 2
  try {
    if (!ro.junitxml.empty()) reports::write_junit_xml(ro.junitxml, run, result.final_results, result.reruns);
  } catch (const Error& e) {
    report_failure = e.what();
  }
  if (result.max_failures_reached) {
    console << "stopping after " << result.unexpected << " unexpected result(s) (--maxfail " << ro.maxfail << "); "
            << cases.size() - result.final_results.size() << " case(s) not run\n";
  }
  print_summary(console, result.final_results, seconds, ro.console, {result.reruns.size(), ro.durations});
  try {
    record_not_started(result, store.get(), run.run_id, o.arch, ro.budget, console);
  } catch (const reports::StoreUnreachable& e) {
    store_failure = e.what();
  }
  const bool cut = !result.not_started_for_budget.empty();
  int code = finish_run_in_store(store.get(), run, signal_number, store_failure, result, cases.size(), ro.db, console);
  if (!report_failure.empty()) {
    std::cerr << "error: " << report_failure << "\n";
    if (code == 0 || code == 1) code = 2;
  }
  if (!resuming || (code != 0 && code != 1)) return code == 0 && cut ? kExitBudgetCut : code;
  // --resume: the outcome of the whole run on this arch and shard, from the store.
  try {
    const std::unique_ptr<reports::ResultStore> stored = reports::open_store(ro.db);
    const size_t unexpected = stored_unexpected(*stored, run.run_id, o.arch, asked);
    console << "run " << run.run_id << " on " << o.arch << ": " << asked.size() << " case(s), " << unexpected
            << " unexpected or without a result\n";
    return unexpected > 0 ? 1 : cut ? kExitBudgetCut : 0;
  } catch (const Error& e) {
    std::cerr << "meshtest: the whole run's outcome could not be read back: " << e.what() << "\n";
    return kExitStoreUnreachable;
  }
}

int cmd_codegen(const CommonOptions& o, const RunOptions& ro) {
  auto c = collect(collection_options(o, ro));
  if (!c) return 2;
  if (selection_is_empty(*c, o)) return kExitNoTestsSelected;
  if (c->selection.selected.size() != 1) {
    std::cerr << "error: meshtest codegen writes one case, the selection has " << c->selection.selected.size()
              << " (give one test id)\n";
    return 2;
  }
  const TestCase& test_case = *c->selection.selected.front();
  const reports::CaseResult r = run_case(test_case, pipeline_options(o, ro));
  if (r.codegen_status != "written") {
    std::cerr << "error: " << test_case.id << ": no program written ("
              << (r.codegen_status.empty() ? "the case stopped in " + r.phase + ": " + r.error_message
                                           : r.codegen_status)
              << ")\n";
    return 1;
  }
  const std::string dir = ro.codegen.out_dir;
  std::cout << test_case.id << ": " << r.device_ops << " device ops written to " << dir << "/" << codegen::kSourceFile
            << " (+ " << codegen::kBuildFile << ", " << codegen::kTensorsFile << ")\n"
            << "build: cmake -S " << dir << " -B " << dir << "/build -DCMAKE_PREFIX_PATH=<meshtest prefix> && "
            << "cmake --build " << dir << "/build\n"
            << "run:   " << dir << "/build/" << codegen::kExecutableName << " " << dir << "/" << codegen::kTensorsFile
            << " outputs.safetensors\n";
  return 0;
}

int cmd_export(const CommonOptions& o, const RunOptions& ro) {
  auto c = collect(collection_options(o, ro));
  if (!c) return 2;
  if (selection_is_empty(*c, o)) return kExitNoTestsSelected;
  if (c->selection.selected.size() != 1) {
    std::cerr << "error: meshtest export writes one case, the selection has " << c->selection.selected.size()
              << " (give one test id)\n";
    return 2;
  }
  const TestCase& test_case = *c->selection.selected.front();
  const std::filesystem::path stem =
      std::filesystem::path(ro.compile.stablehlo_export_dir) / sanitize_test_id(test_case.id);
  const std::string mlir = stem.string() + ".mlir";
  std::filesystem::remove(mlir);  // what exists afterwards is this export's
  RunOptions compile_only = ro;
  compile_only.compile.compile_only = true;
  const reports::CaseResult r = run_case(test_case, pipeline_options(o, compile_only));
  if (!std::filesystem::exists(mlir)) {
    std::cerr << "error: " << test_case.id << ": nothing exported (the case stopped in " << r.phase << ": "
              << r.error_message << ")\n";
    return 1;
  }
  std::cout << test_case.id << ": " << mlir;
  if (!ro.compile.stablehlo_inline_weights) std::cout << " + " << stem.string() << ".safetensors";
  std::cout << "\n";
  if (r.phase == "compile" && !r.error_message.empty()) {
    std::cerr << "note: the simulated compile after the export failed: " << r.error_message << "\n";
  }
  return 0;
}

}  // namespace meshtest::runner
