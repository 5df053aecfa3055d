// collect and run: discovery -> matrix -> selection -> (pipeline -> reports).
#include "runner/cli/commands.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "config/test_config.h"
#include "core/error.h"
#include "discovery/discovery.h"
#include "reports/json_lines.h"
#include "reports/junit_xml.h"
#include "reports/result_store.h"
#include "reports/spooled_store.h"
#include "reports/work_queue.h"
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
#include "runner/pipeline/training_steps.h"

#ifndef MESHTEST_GIT_SHA
#define MESHTEST_GIT_SHA "unknown"
#endif

namespace meshtest::runner {

namespace {

// Config, discovery, matrix and selection (runner/collection/collection.h); problems
// are printed to stderr and give nullptr.
std::unique_ptr<Collected> collect(const CommonOptions& o) { return collect_cases(o, &std::cerr); }

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

}  // namespace

int cmd_collect(const CommonOptions& o) {
  auto c = collect(o);
  if (!c) return 2;
  for (const TestCase* t : c->selection.selected) {
    std::cout << t->id;
    if (!t->loader_error.empty()) std::cout << "  [loader error: " << t->loader_error << "]";
    if (t->placeholder) std::cout << "  [placeholder: " << config::bringup_name(*t->expectation.bringup_status) << "]";
    std::cout << "\n";
  }
  std::cout << c->selection.selected.size() << "/" << c->cases.size() << " tests collected ("
            << c->selection.deselected << " deselected)\n";
  return 0;
}

namespace {

PipelineOptions pipeline_options(const CommonOptions& o, const RunOptions& ro) {
  PipelineOptions popts;
  popts.arch = runtime::arch_profile(o.arch);
  popts.chip = popts.arch.chip;
  popts.backend = ro.backend;
  popts.compile = ro.compile;
  popts.force_run = ro.force_run;
  popts.strict_xfail = ro.strict_xfail;
  if (!ro.optimizer_step.empty()) popts.sgd_learning_rate = parse_optimizer_step(ro.optimizer_step);
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
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  lo.jobs = ro.jobs > 0 ? ro.jobs : static_cast<size_t>(std::max(1L, cores));
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
                                              reports::ResultStore& store, const std::string& run_id, int reruns,
                                              std::map<std::string, int>& first_attempt) {
  const std::map<std::string, reports::LastAttempt> last = store.last_attempts(run_id);
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
  std::cout << "resuming run " << run_id << ": " << (cases.size() - out.size()) << " of " << cases.size()
            << " case(s) already have a final result";
  if (retried > 0) std::cout << ", " << retried << " go on to their next attempt";
  std::cout << "\n";
  return out;
}

// The run's last word to its store and the exit status: finished, interrupted
// by a signal (128 + signal), or the store given up on (kExitStoreUnreachable).
int finish_run_in_store(reports::SpooledStore* store, const reports::RunInfo& run, int signal_number,
                        std::string store_failure, const LoopResult& result, size_t cases, const std::string& db) {
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
  if (store) std::cout << "results stored in " << db << " (run " << run.run_id << ")\n";
  return result.unexpected > 0 ? 1 : 0;
}

}  // namespace

std::unique_ptr<ForkServer> start_worker_server(const CommonOptions& o, const RunOptions& ro) {
  return ForkServer::start([o, ro]() -> ForkServer::WorkerMain {
    std::shared_ptr<Collected> c(collect(o).release());
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
      return run_case_in_worker(*it->second, popts, request.attempt, status_fd);
    };
  });
}

int cmd_run(const CommonOptions& o, const RunOptions& ro, ForkServer* server) {
  auto c = collect(o);
  if (!c) return 2;

  const PipelineOptions popts = pipeline_options(o, ro);
  reports::RunInfo run = describe_run(o, ro);
  std::unique_ptr<reports::SpooledStore> store;
  std::unique_ptr<reports::JsonLinesWriter> json_lines;  // --json
  std::map<std::string, reports::CaseHistory> history;
  std::vector<const TestCase*> cases = c->selection.selected;
  std::unique_ptr<reports::WorkQueue> queue;  // --queue
  LoopOptions lo;
  try {
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
    }
    const std::string spool = ro.spool.empty() ? "meshtest-spool-" + run.run_id + ".jsonl" : ro.spool;
    if (resumed) {
      if (const size_t n = reports::replay_spool(*opened, spool, run.run_id); n > 0) {
        std::cout << "stored " << n << " result(s) left in the spool " << spool << "\n";
      }
    }
    // A resumed run sees the history it started with, so --shard picks the same cases.
    if (opened) history = opened->case_history(5, resumed ? resumed->started_at : "");
    if (!ro.queue.empty() && (ro.run_id.empty() || ro.resume || !ro.shard.empty())) {
      throw Error("--queue needs the --run-id every process shares, and takes neither --resume nor --shard "
                  "(start the same command again to go on with a queue run)");
    }
    if (!ro.queue.empty()) queue = std::make_unique<reports::WorkQueue>(ro.queue);
    if (!ro.shard.empty()) cases = select_shard(cases, parse_shard(ro.shard), history);
    if (resumed) {
      cases = unfinished_cases(cases, *opened, run.run_id, ro.reruns, lo.first_attempt);
    } else if (opened) {
      opened->begin_run(run);
    }
    if (opened) {
      store = std::make_unique<reports::SpooledStore>(
          std::move(opened), [url = ro.db] { return reports::open_store(url); }, spool, ro.store_retry_seconds);
    }
    if (!ro.json.empty()) json_lines = std::make_unique<reports::JsonLinesWriter>(ro.json);
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  std::cout << "meshtest run " << run.run_id << ": " << cases.size() << " case(s) on " << o.arch;
  if (!ro.shard.empty()) std::cout << " (shard " << ro.shard << ")";
  if (queue) std::cout << " (shared queue)";
  std::cout << (server ? ", " + std::to_string(lo.jobs) + " worker(s)" : ", in-process") << "\n";
  const SteadyClock clock;
  std::unique_ptr<CaseExecutor> executor;
  if (server) executor = std::make_unique<ProcessPool>(*server, popts, clock);
  else executor = std::make_unique<InProcessExecutor>(popts);
  auto progress = make_progress(std::cout, stdout_is_terminal(), cases.size(), clock);
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
    result = run_cases(cases, history, *executor, lo, *progress, record);
  }
  executor.reset();  // stops the workers of a stopped run
  const double seconds = clock.now_seconds() - start;
  run.finished_at = reports::utc_now_iso8601();
  const int signal_number = signals.received();
  if (!ro.junitxml.empty()) reports::write_junit_xml(ro.junitxml, run, result.final_results);
  print_summary(std::cout, result.final_results, seconds);
  return finish_run_in_store(store.get(), run, signal_number, store_failure, result, cases.size(), ro.db);
}

}  // namespace meshtest::runner
