// Fork server: the server loop, worker forking, and the socket protocol.
#include "runner/engine/fork_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include "core/error.h"
#include "runner/engine/fd_passing.h"

namespace meshtest::runner {

namespace {

size_t thread_count() {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

void send_event(int socket, const ForkServer::Event& event) {
  while (send(socket, &event, sizeof event, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// One request: the parent's token, the payload, and the descriptors (see spawn).
struct Request {
  uint64_t token = 0;
  std::string payload;
  std::vector<int> fds;
};

// Reads one request; nullopt at EOF.
std::optional<Request> receive_request(int socket) {
  std::optional<ReceivedMessage> m = receive_with_fds(socket);
  if (!m) return std::nullopt;
  Request r;
  r.fds = std::move(m->fds);
  if (m->body.size() >= sizeof r.token) {
    std::memcpy(&r.token, m->body.data(), sizeof r.token);
    r.payload = m->body.substr(sizeof r.token);
  }
  return r;
}

void close_all(const std::vector<int>& fds) {
  for (int fd : fds) close(fd);
}

// Runs one case with its output on stdout/stderr, then detaches both pipes
// (stdout/stderr to /dev/null, the status pipe closed) so the parent reads
// EOF: everything the case printed is in its own pipe before that.
int serve_case(const ForkServer::WorkerMain& main, const std::string& payload, int status_fd, int output_fd,
               int null_fd) {
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);
  close(output_fd);
  int status = 1;
  try {
    status = main(payload, status_fd);
  } catch (const std::exception& e) {
    std::cerr << "meshtest worker: " << e.what() << "\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  dup2(null_fd, STDOUT_FILENO);
  dup2(null_fd, STDERR_FILENO);
  close(status_fd);
  return status;
}

// A worker: its first case, then (given a command socket: a warm worker)
// each further case the parent sends on it, until EOF or a case that did not
// report a result.
[[noreturn]] void run_worker(const ForkServer::WorkerMain& main, const Request& first) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  const int command = first.fds.size() > 2 ? first.fds[2] : -1;
  int status = serve_case(main, first.payload, first.fds[0], first.fds[1], null_fd);
  while (status == 0 && command >= 0) {
    std::optional<ReceivedMessage> next = receive_with_fds(command);
    if (!next) break;  // EOF: the parent needs this worker no more
    if (next->fds.size() != 2) {
      close_all(next->fds);
      status = 3;
      break;
    }
    status = serve_case(main, next->body, next->fds[0], next->fds[1], null_fd);
  }
  std::fflush(nullptr);
  _exit(status);  // no static destructors: thread pools may be running
}

[[noreturn]] void serve(int socket, const ForkServer::Setup& setup) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  const int sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  ForkServer::WorkerMain main;
  std::map<pid_t, uint64_t> workers;
  bool warned = false;
  for (;;) {
    pollfd fds[2] = {{socket, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) > 0) {
      }
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        auto it = workers.find(pid);
        if (it == workers.end()) continue;
        send_event(socket, {it->second, ForkServer::Event::Kind::Exited, status});
        workers.erase(it);
      }
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    std::optional<Request> request = receive_request(socket);
    if (!request) break;
    if (!main) main = setup();
    if (!warned && thread_count() > 1) {
      warned = true;
      spdlog::warn("fork server has {} threads before forking workers; thread pools may break in workers",
                   thread_count());
    }
    const pid_t pid = request->fds.size() >= 2 ? fork() : -1;
    if (pid == 0) {
      close(socket);
      close(sigfd);
      run_worker(main, *request);
    }
    close_all(request->fds);
    if (pid < 0) {
      send_event(socket, {request->token, ForkServer::Event::Kind::Exited, W_EXITCODE(127, 0)});
      continue;
    }
    workers[pid] = request->token;
    send_event(socket, {request->token, ForkServer::Event::Kind::Started, pid});
  }
  // Workers still running (or just done with their last case) are killed and
  // reaped, so their resource usage counts in the runner's children.
  for (const auto& [pid, token] : workers) kill(pid, SIGKILL);
  for (const auto& [pid, token] : workers) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  _exit(0);
}

}  // namespace

std::unique_ptr<ForkServer> ForkServer::start(Setup setup) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    throw Error(std::string("fork server: socketpair failed: ") + std::strerror(errno));
  }
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork server: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    close(sv[0]);
    serve(sv[1], setup);
  }
  close(sv[1]);
  return std::unique_ptr<ForkServer>(new ForkServer(sv[0], pid));
}

ForkServer::~ForkServer() {
  close(socket_);  // the server sees EOF, kills leftover workers and exits
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void ForkServer::spawn(uint64_t token, const std::string& request, int status_fd, int output_fd, int command_fd) {
  std::string body(sizeof token, '\0');
  std::memcpy(body.data(), &token, sizeof token);
  body += request;
  std::vector<int> fds{status_fd, output_fd};
  if (command_fd >= 0) fds.push_back(command_fd);
  if (!send_with_fds(socket_, body, fds)) throw Error(std::string("fork server is gone: ") + std::strerror(errno));
}

std::optional<ForkServer::Event> ForkServer::read_event() {
  Event event;
  ssize_t n;
  do {
    n = recv(socket_, &event, sizeof event, 0);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof event)) return std::nullopt;
  return event;
}

}  // namespace meshtest::runner
