// Messages that carry descriptors (SCM_RIGHTS) over a SOCK_SEQPACKET socket:
// the fork server's spawn requests and the cases the parent hands to a warm
// worker (--cases-per-worker) go through these two functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::runner {

// The most descriptors one message carries.
inline constexpr size_t kMaxPassedFds = 3;
// The longest body one message carries.
inline constexpr size_t kMaxMessageBody = 64 * 1024;

// Sends `body` with duplicates of `fds` (at most kMaxPassedFds); the caller
// keeps its own. False when the peer is gone (errno says why).
bool send_with_fds(int socket, std::string_view body, const std::vector<int>& fds);

struct ReceivedMessage {
  std::string body;
  std::vector<int> fds;  // received close-on-exec; the receiver owns them
};
// Receives one message; nullopt at EOF or on an error.
std::optional<ReceivedMessage> receive_with_fds(int socket);

}  // namespace meshtest::runner
