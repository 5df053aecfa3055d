// SCM_RIGHTS send and receive, retried on EINTR.
#include "runner/engine/fd_passing.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace meshtest::runner {

bool send_with_fds(int socket, std::string_view body, const std::vector<int>& fds) {
  iovec iov{const_cast<char*>(body.data()), body.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxPassedFds * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    const size_t n = std::min(fds.size(), kMaxPassedFds);
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(n * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds.data(), n * sizeof(int));
  }
  ssize_t sent;
  do {
    sent = sendmsg(socket, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent >= 0;
}

std::optional<ReceivedMessage> receive_with_fds(int socket) {
  ReceivedMessage out;
  out.body.resize(kMaxMessageBody);
  iovec iov{out.body.data(), out.body.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(kMaxPassedFds * sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  out.body.resize(static_cast<size_t>(n));
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const size_t first = out.fds.size();
    out.fds.resize(first + count);
    std::memcpy(out.fds.data() + first, CMSG_DATA(c), count * sizeof(int));
  }
  return out;
}

}  // namespace meshtest::runner
