// Process isolation, parent side: starts each case in a worker forked by the
// ForkServer and watches it — phase messages, heartbeats, its deadline, its
// resident memory — until it reports a record or dies. A worker that dies or
// is killed still yields a record: the phase it had reached and one failure
// kind (crash with the signal name, timeout, hang, oom), with its captured
// stdout/stderr.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "runner/engine/fork_server.h"
#include "runner/engine/process_clock.h"
#include "runner/engine/process_output.h"
#include "runner/engine/worker_executor.h"
#include "runner/engine/worker_protocol.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

class ProcessPool : public CaseExecutor {
 public:
  ProcessPool(ForkServer& server, PipelineOptions options, const Clock& clock)
      : server_(server), options_(std::move(options)), clock_(clock) {}
  ~ProcessPool() override;
  void start(const TestCase& test_case, int attempt, const CaseLimits& limits) override;
  std::vector<reports::CaseResult> collect_finished(double wait_seconds) override;
  size_t running() const override { return workers_.size(); }

 private:
  struct Worker {
    const TestCase* test_case = nullptr;
    int attempt = 1;
    CaseLimits limits;
    pid_t pid = 0;
    int status_fd = -1;
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

  void drain(Worker& worker);
  void watch(Worker& worker, double now);
  void kill_for(Worker& worker, reports::FailureKind kind, std::string message);
  void handle_server_events(std::vector<reports::CaseResult>& finished);
  reports::CaseResult finish(Worker& worker, int wait_status);

  ForkServer& server_;
  PipelineOptions options_;
  const Clock& clock_;
  uint64_t next_token_ = 1;
  std::map<uint64_t, Worker> workers_;
};

}  // namespace meshtest::runner
