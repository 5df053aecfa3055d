// The worker processes of process isolation, apart from the cases they run
// (ProcessPool keeps those): a case goes to an idle warm worker that has run
// fewer than --cases-per-worker cases, else to a new one from the fork
// server. A warm worker takes its cases on a command socket; closing that
// socket (EOF) makes it exit, and the fork server reaps it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

#include "runner/engine/fork_server.h"

namespace meshtest::runner {

class WorkerProcesses {
 public:
  // cases_per_worker 1: every case in a new worker, which exits after it.
  WorkerProcesses(ForkServer& server, size_t cases_per_worker)
      : server_(server), cases_per_worker_(cases_per_worker < 1 ? 1 : cases_per_worker) {}
  ~WorkerProcesses();  // closes every command socket
  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;

  // Whether a worker may serve more than one case.
  bool warm() const { return cases_per_worker_ > 1; }

  struct Assignment {
    uint64_t worker = 0;  // the fork server's token of the worker
    bool new_worker = true;
  };
  // Hands `request` and the worker ends of a case's status and output pipes
  // (the caller keeps and closes its own) to an idle warm worker, or, when
  // `fresh` or none is idle, to a new worker. Throws Error when the fork
  // server is gone.
  Assignment run(const std::string& request, int status_fd, int output_fd, bool fresh);

  // Fork server events.
  void started(uint64_t worker, pid_t pid);
  void exited(uint64_t worker);

  // The worker's case has its record. It takes another if `reuse` and it
  // has run fewer than cases_per_worker; otherwise it is closed.
  void case_done(uint64_t worker, bool reuse);
  // Closes every idle worker (none is needed now).
  void close_idle();

  pid_t pid(uint64_t worker) const;  // 0 until the fork server says it started

 private:
  struct Process {
    pid_t pid = 0;
    int command_fd = -1;  // -1: takes no further case
    size_t cases = 0;
    bool busy = true;
  };
  static void close_command(Process& process);

  ForkServer& server_;
  size_t cases_per_worker_;
  uint64_t next_token_ = 1;
  std::map<uint64_t, Process> processes_;
};

}  // namespace meshtest::runner
