// The fork server: a process forked from the pristine runner before anything
// starts a thread pool (oneTBB, oneDNN/OpenMP, Eigen; DESIGN.md §7). It does
// its one-time setup (discovery, matrix) lazily, then forks one worker per
// request. The parent talks to it over a SOCK_SEQPACKET socket: a request
// carries an opaque payload plus two descriptors (the worker's status pipe
// and its stdout/stderr), and for a warm worker a third: a command socket on
// which the worker then takes further cases, one message each (payload +
// status pipe + output pipe), until EOF (--cases-per-worker). The server
// answers with Started(pid) and Exited(wait status) events. If the parent
// dies, the server and its workers die with it (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace meshtest::runner {

class ForkServer {
 public:
  // Runs in a worker: handles one request, writing messages to status_fd;
  // returns the worker's exit status (a warm worker takes another case only
  // after 0).
  using WorkerMain = std::function<int(const std::string& request, int status_fd)>;
  // Runs once in the server, before its first fork: builds what workers need.
  using Setup = std::function<WorkerMain()>;

  struct Event {
    enum class Kind : int32_t { Started = 1, Exited = 2 };
    uint64_t token = 0;
    Kind kind = Kind::Started;
    int64_t value = 0;  // Started: the worker pid; Exited: its wait status
  };

  // Forks the server now; call while this process has started no threads.
  static std::unique_ptr<ForkServer> start(Setup setup);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // Asks for a worker. The descriptors are duplicated into it; the caller
  // keeps (and should close) its own copies. With `command_fd` (one end of a
  // SOCK_SEQPACKET socketpair) the worker serves further cases sent there
  // with send_with_fds (runner/engine/fd_passing.h) until EOF.
  void spawn(uint64_t token, const std::string& request, int status_fd, int output_fd, int command_fd = -1);
  // Readable when an event is waiting.
  int event_fd() const { return socket_; }
  // Reads one event; nullopt when the server is gone.
  std::optional<Event> read_event();
  pid_t pid() const { return pid_; }

 private:
  ForkServer(int socket, pid_t pid) : socket_(socket), pid_(pid) {}
  int socket_;
  pid_t pid_;
};

}  // namespace meshtest::runner
