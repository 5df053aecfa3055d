// Worker process bookkeeping: reuse of idle warm workers, new workers from
// the fork server, closing the ones no longer needed.
#include "runner/engine/worker_processes.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "runner/engine/fd_passing.h"

namespace meshtest::runner {

WorkerProcesses::~WorkerProcesses() {
  for (auto& [token, p] : processes_) close_command(p);
}

void WorkerProcesses::close_command(Process& p) {
  if (p.command_fd >= 0) close(p.command_fd);
  p.command_fd = -1;
}

WorkerProcesses::Assignment WorkerProcesses::run(const std::string& request, int status_fd, int output_fd,
                                                 bool fresh) {
  for (auto& [token, p] : processes_) {
    if (fresh || p.busy || p.command_fd < 0) continue;
    if (send_with_fds(p.command_fd, request, {status_fd, output_fd})) {
      p.busy = true;
      ++p.cases;
      return {token, false};
    }
    close_command(p);  // it is gone (its exit event is on the way): a new worker instead
  }
  int command[2] = {-1, -1};
  if (warm() && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, command) != 0) {
    throw Error(std::string("socketpair failed: ") + std::strerror(errno));
  }
  const uint64_t token = next_token_++;
  try {
    server_.spawn(token, request, status_fd, output_fd, command[1]);
  } catch (...) {
    if (warm()) {
      close(command[0]);
      close(command[1]);
    }
    throw;
  }
  if (command[1] >= 0) close(command[1]);
  Process& p = processes_[token];
  p.command_fd = command[0];
  p.cases = 1;
  return {token, true};
}

void WorkerProcesses::started(uint64_t worker, pid_t pid) {
  auto it = processes_.find(worker);
  if (it != processes_.end()) it->second.pid = pid;
}

void WorkerProcesses::exited(uint64_t worker) {
  auto it = processes_.find(worker);
  if (it == processes_.end()) return;
  close_command(it->second);
  processes_.erase(it);
}

void WorkerProcesses::case_done(uint64_t worker, bool reuse) {
  auto it = processes_.find(worker);
  if (it == processes_.end()) return;
  it->second.busy = false;
  if (!reuse || it->second.cases >= cases_per_worker_) close_command(it->second);
}

void WorkerProcesses::close_idle() {
  for (auto& [token, p] : processes_) {
    if (!p.busy) close_command(p);
  }
}

pid_t WorkerProcesses::pid(uint64_t worker) const {
  auto it = processes_.find(worker);
  return it == processes_.end() ? 0 : it->second.pid;
}

}  // namespace meshtest::runner
