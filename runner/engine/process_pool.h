// Process isolation, parent side: starts each case in a worker (a new one
// forked by the ForkServer, or an idle warm one: WorkerProcesses) and
// watches it — phase messages, heartbeats, its deadline, its resident memory
// — until it reports a record or dies. A case is done when its record has
// arrived and its status pipe reached EOF (the worker detached its output),
// or when its worker exits. A worker that dies or is killed still yields a
// record: the phase it had reached and one failure kind (crash with the
// signal name, timeout, hang, oom), with its captured stdout/stderr; the
// next case starts in a new worker. Retries (attempt > 1) always do, and a
// worker whose case ended as an error takes no further case.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "runner/engine/fork_server.h"
#include "runner/engine/process_clock.h"
#include "runner/engine/process_output.h"
#include "runner/engine/worker_executor.h"
#include "runner/engine/worker_processes.h"
#include "runner/engine/worker_protocol.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

class ProcessPool : public CaseExecutor {
 public:
  // cases_per_worker: --cases-per-worker (1: a new worker for every case).
  ProcessPool(ForkServer& server, PipelineOptions options, const Clock& clock, size_t cases_per_worker = 1)
      : server_(server), options_(std::move(options)), clock_(clock), workers_(server, cases_per_worker) {}
  ~ProcessPool() override;
  void start(const TestCase& test_case, int attempt, const CaseLimits& limits) override;
  std::vector<reports::CaseResult> collect_finished(double wait_seconds) override;
  size_t running() const override { return cases_.size(); }

 private:
  // One case in flight, on the worker whose token keys it in cases_.
  struct RunningCase {
    const TestCase* test_case = nullptr;
    int attempt = 1;
    CaseLimits limits;
    bool new_worker = true;  // its deadline counts from the fork
    int status_fd = -1;
    bool status_closed = false;  // EOF on the status pipe
    int output_fd = -1;
    LineReader lines;
    CappedOutput output;
    std::string phase;
    std::string started_at;
    double started = 0, last_beat = 0;
    int64_t peak_rss = 0;
    std::optional<reports::CaseResult> result;
    reports::FailureKind killed_for = reports::FailureKind::None;
    std::string kill_message;
  };

  void drain(RunningCase& running);
  void watch(uint64_t worker, RunningCase& running, double now);
  void kill_for(uint64_t worker, RunningCase& running, reports::FailureKind kind, std::string message);
  void handle_server_events(std::vector<reports::CaseResult>& finished);
  void collect_reported(std::vector<reports::CaseResult>& finished);
  reports::CaseResult finish(RunningCase& running, int wait_status);

  ForkServer& server_;
  PipelineOptions options_;
  const Clock& clock_;
  WorkerProcesses workers_;
  std::map<uint64_t, RunningCase> cases_;
};

}  // namespace meshtest::runner
