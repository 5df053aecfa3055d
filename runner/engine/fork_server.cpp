// Fork server: the server loop, worker forking, and the socket protocol.
#include "runner/engine/fork_server.h"

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
#include <vector>

#include "core/error.h"

namespace meshtest::runner {

namespace {

constexpr size_t kMaxRequest = 64 * 1024;

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

// Receives one request: token + payload, and two descriptors. Returns false at EOF.
bool receive_request(int socket, uint64_t& token, std::string& payload, int fds[2]) {
  std::vector<char> buffer(kMaxRequest);
  iovec iov{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0 || static_cast<size_t>(n) < sizeof token) return false;
  std::memcpy(&token, buffer.data(), sizeof token);
  payload.assign(buffer.data() + sizeof token, static_cast<size_t>(n) - sizeof token);
  fds[0] = fds[1] = -1;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (c != nullptr && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
    std::memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
  }
  return true;
}

[[noreturn]] void run_worker(const ForkServer::WorkerMain& main, const std::string& payload, int status_fd,
                             int output_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_IGN);
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
    uint64_t token = 0;
    std::string payload;
    int pipes[2];
    if (!receive_request(socket, token, payload, pipes)) break;
    if (!main) main = setup();
    if (!warned && thread_count() > 1) {
      warned = true;
      spdlog::warn("fork server has {} threads before forking workers; thread pools may break in workers",
                   thread_count());
    }
    const pid_t pid = fork();
    if (pid == 0) {
      close(socket);
      close(sigfd);
      run_worker(main, payload, pipes[0], pipes[1]);
    }
    close(pipes[0]);
    close(pipes[1]);
    if (pid < 0) {
      send_event(socket, {token, ForkServer::Event::Kind::Exited, W_EXITCODE(127, 0)});
      continue;
    }
    workers[pid] = token;
    send_event(socket, {token, ForkServer::Event::Kind::Started, pid});
  }
  for (const auto& [pid, token] : workers) kill(pid, SIGKILL);
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

void ForkServer::spawn(uint64_t token, const std::string& request, int status_fd, int output_fd) {
  std::string body(sizeof token, '\0');
  std::memcpy(body.data(), &token, sizeof token);
  body += request;
  iovec iov{body.data(), body.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {status_fd, output_fd};
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  ssize_t n;
  do {
    n = sendmsg(socket_, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw Error(std::string("fork server is gone: ") + std::strerror(errno));
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
