// Worker supervision: one poll loop over the fork server's events and every
// worker's status and output pipes; deadlines, hangs and memory checked on
// each tick.
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
  for (auto& [token, w] : workers_) {
    if (w.pid > 0) kill(w.pid, SIGKILL);
    close(w.status_fd);
    close(w.output_fd);
  }
}

void ProcessPool::start(const TestCase& test_case, int attempt, const CaseLimits& limits) {
  int status[2], output[2];
  make_pipe(status);
  make_pipe(output);
  const uint64_t token = next_token_++;
  Worker& w = workers_[token];
  w.test_case = &test_case;
  w.attempt = attempt;
  w.limits = limits;
  w.status_fd = status[0];
  w.output_fd = output[0];
  w.started = w.last_beat = clock_.now_seconds();
  w.started_at = reports::utc_now_iso8601();
  try {
    server_.spawn(token, encode_worker_request({test_case.id, attempt}), status[1], output[1]);
  } catch (...) {
    close(status[1]);
    close(output[1]);
    throw;
  }
  close(status[1]);
  close(output[1]);
}

void ProcessPool::drain(Worker& w) {
  char buf[65536];
  ssize_t n;
  while ((n = read(w.output_fd, buf, sizeof buf)) > 0) w.output.append(buf, static_cast<size_t>(n));
  while ((n = read(w.status_fd, buf, sizeof buf)) > 0) {
    w.lines.feed(buf, static_cast<size_t>(n));
    while (auto line = w.lines.next()) {
      WorkerMessage m = decode_message(*line);
      w.last_beat = clock_.now_seconds();
      if (m.kind == WorkerMessage::Kind::Phase) w.phase = m.phase;
      if (m.kind == WorkerMessage::Kind::Result) w.result = std::move(m.result);
    }
  }
}

void ProcessPool::kill_for(Worker& w, FailureKind kind, std::string message) {
  if (w.killed_for != FailureKind::None || w.result) return;
  w.killed_for = kind;
  w.kill_message = std::move(message);
  kill(w.pid, SIGKILL);
}

void ProcessPool::watch(Worker& w, double now) {
  if (w.pid <= 0) return;
  const int64_t rss = process_rss_bytes(w.pid);
  w.peak_rss = std::max(w.peak_rss, rss);
  char text[128];
  if (w.limits.max_rss_bytes > 0 && rss > w.limits.max_rss_bytes) {
    kill_for(
        w, FailureKind::Oom,
        "worker used " + mib(rss) + " of host memory, over the --max-memory limit of " + mib(w.limits.max_rss_bytes));
  } else if (w.limits.timeout_seconds > 0 && now - w.started > w.limits.timeout_seconds) {
    std::snprintf(text, sizeof text, "timed out: the %.3gs deadline passed", w.limits.timeout_seconds);
    kill_for(w, FailureKind::Timeout, text);
  } else if (w.limits.hang_seconds > 0 && now - w.last_beat > w.limits.hang_seconds) {
    std::snprintf(text, sizeof text, "hung: no heartbeat from the worker for %.3gs", w.limits.hang_seconds);
    kill_for(w, FailureKind::Hang, text);
  }
}

CaseResult ProcessPool::finish(Worker& w, int wait_status) {
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
    auto it = workers_.find(e->token);
    if (it == workers_.end()) continue;
    if (e->kind == ForkServer::Event::Kind::Started) {
      it->second.pid = static_cast<pid_t>(e->value);
      it->second.started = it->second.last_beat = clock_.now_seconds();  // deadlines count from the fork
    } else {
      finished.push_back(finish(it->second, static_cast<int>(e->value)));
      workers_.erase(it);
    }
  }
}

std::vector<CaseResult> ProcessPool::collect_finished(double wait_seconds) {
  std::vector<CaseResult> finished;
  const double until = clock_.now_seconds() + wait_seconds;
  for (;;) {
    std::vector<pollfd> fds{{server_.event_fd(), POLLIN, 0}};
    for (auto& [token, w] : workers_) {
      fds.push_back({w.status_fd, POLLIN, 0});
      fds.push_back({w.output_fd, POLLIN, 0});
    }
    const double left = std::max(0.0, std::min(kTickSeconds, until - clock_.now_seconds()));
    poll(fds.data(), fds.size(), static_cast<int>(left * 1000));
    for (auto& [token, w] : workers_) drain(w);
    handle_server_events(finished);
    const double now = clock_.now_seconds();
    for (auto& [token, w] : workers_) watch(w, now);
    if (!finished.empty() || workers_.empty() || now >= until) return finished;
  }
}

}  // namespace meshtest::runner
