// Case supervision: one poll loop over the fork server's events and every
// running case's status and output pipes; deadlines, hangs and memory
// checked on each tick.
#include "runner/engine/process_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "core/error.h"
#include "runner/engine/process_stats.h"
#include "runner/engine/stop_signals.h"
#include "runner/engine/worker_main.h"

namespace meshtest::runner {

using reports::CaseResult;
using reports::FailureKind;

namespace {

constexpr double kTickSeconds = 0.02;

void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe failed: ") + std::strerror(errno));
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
}

std::string signal_text(int sig) { return signal_name(sig) + " (" + strsignal(sig) + ")"; }

std::string mib(int64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

std::optional<Phase> parse_phase(const std::string& name) {
  for (Phase p : {Phase::LoadModel, Phase::LoadInputs, Phase::Golden, Phase::Compile, Phase::Execute, Phase::Compare,
                  Phase::Done}) {
    if (phase_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace

ProcessPool::~ProcessPool() {
  for (auto& [worker, c] : cases_) {
    if (const pid_t pid = workers_.pid(worker); pid > 0) kill(pid, SIGKILL);
    close(c.status_fd);
    close(c.output_fd);
  }
}

void ProcessPool::start(const TestCase& test_case, int attempt, const CaseLimits& limits) {
  int status[2], output[2];
  make_pipe(status);
  make_pipe(output);
  WorkerRequest request{test_case.id, attempt, 0};
  // A warm worker keeps at most half the memory limit for its next case.
  if (workers_.warm() && limits.max_rss_bytes > 0) request.release_above_rss_bytes = limits.max_rss_bytes / 2;
  WorkerProcesses::Assignment assigned;
  try {
    assigned = workers_.run(encode_worker_request(request), status[1], output[1], /*fresh=*/attempt > 1);
  } catch (...) {
    for (int fd : {status[0], status[1], output[0], output[1]}) close(fd);
    throw;
  }
  close(status[1]);
  close(output[1]);
  RunningCase& c = cases_[assigned.worker];
  c.test_case = &test_case;
  c.attempt = attempt;
  c.limits = limits;
  c.new_worker = assigned.new_worker;
  c.status_fd = status[0];
  c.output_fd = output[0];
  c.started = c.last_beat = clock_.now_seconds();
  c.started_at = reports::utc_now_iso8601();
}

void ProcessPool::drain(RunningCase& c) {
  char buf[65536];
  ssize_t n;
  while ((n = read(c.output_fd, buf, sizeof buf)) > 0) c.output.append(buf, static_cast<size_t>(n));
  while (!c.status_closed && (n = read(c.status_fd, buf, sizeof buf)) >= 0) {
    if (n == 0) {
      c.status_closed = true;
      break;
    }
    c.lines.feed(buf, static_cast<size_t>(n));
    while (auto line = c.lines.next()) {
      WorkerMessage m = decode_message(*line);
      c.last_beat = clock_.now_seconds();
      if (m.kind == WorkerMessage::Kind::Phase) c.phase = m.phase;
      if (m.kind == WorkerMessage::Kind::Result) c.result = std::move(m.result);
    }
  }
}

// A case whose record has arrived is killed only when its worker then fails
// to let go of it (no EOF within the hang limit): the record stands.
void ProcessPool::kill_for(uint64_t worker, RunningCase& c, FailureKind kind, std::string message) {
  if (c.killed_for != FailureKind::None) return;
  c.killed_for = kind;
  c.kill_message = std::move(message);
  kill(workers_.pid(worker), SIGKILL);
}

void ProcessPool::watch(uint64_t worker, RunningCase& c, double now) {
  const pid_t pid = workers_.pid(worker);
  if (pid <= 0) return;
  char text[128];
  if (c.result) {
    if (c.limits.hang_seconds > 0 && now - c.last_beat > c.limits.hang_seconds) {
      kill_for(worker, c, FailureKind::Hang, "the worker kept its pipes open after the record");
    }
    return;
  }
  const int64_t rss = process_rss_bytes(pid);
  c.peak_rss = std::max(c.peak_rss, rss);
  if (c.limits.max_rss_bytes > 0 && rss > c.limits.max_rss_bytes) {
    kill_for(
        worker, c, FailureKind::Oom,
        "worker used " + mib(rss) + " of host memory, over the --max-memory limit of " + mib(c.limits.max_rss_bytes));
  } else if (c.limits.timeout_seconds > 0 && now - c.started > c.limits.timeout_seconds) {
    std::snprintf(text, sizeof text, "timed out: the %.3gs deadline passed", c.limits.timeout_seconds);
    kill_for(worker, c, FailureKind::Timeout, text);
  } else if (c.limits.hang_seconds > 0 && now - c.last_beat > c.limits.hang_seconds) {
    std::snprintf(text, sizeof text, "hung: no heartbeat from the worker for %.3gs", c.limits.hang_seconds);
    kill_for(worker, c, FailureKind::Hang, text);
  }
}

CaseResult ProcessPool::finish(RunningCase& w, int wait_status) {
  drain(w);
  CaseResult r;
  if (w.result) {
    r = std::move(*w.result);
  } else {
    r = describe_case(*w.test_case, options_);
    r.attempt = w.attempt;
    r.started_at = w.started_at;
    r.finished_at = reports::utc_now_iso8601();
    r.wall_seconds = clock_.now_seconds() - w.started;
    r.peak_host_rss_bytes = w.peak_rss;
    const std::optional<Phase> phase = parse_phase(w.phase);
    r.phase = phase ? w.phase : std::string(phase_name(Phase::LoadModel));
    r.bringup_status = std::string(config::bringup_name(bringup_for(phase.value_or(Phase::LoadModel))));
    // A worker that died is a harness-level error (the run exits 1) unless the case is a known failure.
    r.outcome = w.test_case->expectation.status == config::TestStatus::KnownFailureXfail ? reports::Outcome::Xfailed
                                                                                         : reports::Outcome::Error;
    r.failure_kind = w.killed_for;
    r.error_message = w.kill_message;
    if (w.killed_for != FailureKind::None) {
      // Killed by us: kind and message set above.
    } else if (WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL) {
      r.failure_kind = FailureKind::Oom;
      r.error_message = "worker killed by SIGKILL, likely the kernel's OOM killer (peak " + mib(w.peak_rss) + ")";
    } else if (WIFSIGNALED(wait_status)) {
      r.failure_kind = FailureKind::Crash;
      r.error_message = "worker crashed with " + signal_text(WTERMSIG(wait_status));
    } else {
      r.failure_kind = FailureKind::Crash;
      r.error_message =
          "worker exited with status " + std::to_string(WEXITSTATUS(wait_status)) + " before reporting a result";
    }
  }
  r.captured_output = w.output.text();
  close(w.status_fd);
  close(w.output_fd);
  return r;
}

void ProcessPool::handle_server_events(std::vector<CaseResult>& finished) {
  for (;;) {
    pollfd p{server_.event_fd(), POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return;
    const std::optional<ForkServer::Event> e = server_.read_event();
    if (!e) throw Error("the fork server exited unexpectedly");
    auto it = cases_.find(e->token);
    if (e->kind == ForkServer::Event::Kind::Started) {
      workers_.started(e->token, static_cast<pid_t>(e->value));
      if (it != cases_.end() && it->second.new_worker) {
        it->second.started = it->second.last_beat = clock_.now_seconds();  // deadlines count from the fork
      }
      continue;
    }
    if (it != cases_.end()) {
      finished.push_back(finish(it->second, static_cast<int>(e->value)));
      cases_.erase(it);
    }
    workers_.exited(e->token);
  }
}

// Cases whose record arrived and whose worker let go of them (EOF on the
// status pipe): done, and the worker may take another.
void ProcessPool::collect_reported(std::vector<CaseResult>& finished) {
  for (auto it = cases_.begin(); it != cases_.end();) {
    RunningCase& c = it->second;
    if (!c.result || !c.status_closed || c.killed_for != FailureKind::None) {
      ++it;
      continue;
    }
    finished.push_back(finish(c, 0));
    workers_.case_done(it->first, /*reuse=*/finished.back().outcome != reports::Outcome::Error);
    it = cases_.erase(it);
  }
}

std::vector<CaseResult> ProcessPool::collect_finished(double wait_seconds) {
  workers_.close_idle();  // the run loop has started what it could: idle workers are not needed
  std::vector<CaseResult> finished;
  const double until = clock_.now_seconds() + wait_seconds;
  for (;;) {
    std::vector<pollfd> fds{{server_.event_fd(), POLLIN, 0}};
    for (auto& [worker, c] : cases_) {
      if (!c.status_closed) fds.push_back({c.status_fd, POLLIN, 0});
      fds.push_back({c.output_fd, POLLIN, 0});
    }
    const double left = std::max(0.0, std::min(kTickSeconds, until - clock_.now_seconds()));
    poll(fds.data(), fds.size(), static_cast<int>(left * 1000));
    for (auto& [worker, c] : cases_) drain(c);
    handle_server_events(finished);
    collect_reported(finished);
    const double now = clock_.now_seconds();
    for (auto& [worker, c] : cases_) watch(worker, c, now);
    if (!finished.empty() || cases_.empty() || now >= until) return finished;
  }
}

}  // namespace meshtest::runner
