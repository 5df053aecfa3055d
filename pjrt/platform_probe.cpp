// A child process creates the plugin's client and reports its platform (see
// platform_probe.h). The pipe carries "P<platform>" or "E<message>".
#include "pjrt/platform_probe.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>

#include "core/error.h"
#include "pjrt/named_values.h"
#include "pjrt/pjrt_client.h"
#include "pjrt/plugin_library.h"

namespace meshtest::pjrt {

namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void report_platform(const backend::BackendConfig& config, int fd) {
  std::string message;
  try {
    const Client client(open_plugin(config.pjrt_plugin), parse_named_values(config.pjrt_options));
    std::string platform = client.platform_name();
    std::transform(platform.begin(), platform.end(), platform.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    message = "P" + platform;
  } catch (const std::exception& e) {
    message = std::string("E") + e.what();
  }
  write_all(fd, message);
  ::_exit(message[0] == 'P' ? 0 : 1);
}

// Everything the child writes, until it closes the pipe or `deadline` passes
// (then `timed_out`).
std::string read_until_closed(int fd, std::chrono::steady_clock::time_point deadline, bool& timed_out) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      return text;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

std::string probe_platform(const backend::BackendConfig& config, int timeout_seconds) {
  const std::string who = "PJRT plugin " + config.pjrt_plugin + ": creating a client";
  int fds[2];
  if (::pipe(fds) != 0) throw Error(who + ": pipe failed: " + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(who + ": fork failed: " + std::strerror(errno));
  }
  if (child == 0) {
    ::close(fds[0]);
    report_platform(config, fds[1]);
  }
  ::close(fds[1]);
  bool timed_out = false;
  const std::string text =
      read_until_closed(fds[0], std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds), timed_out);
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) throw Error(who + " took longer than " + std::to_string(timeout_seconds) + " s");
  if (WIFSIGNALED(status)) {
    const char* abbrev = ::sigabbrev_np(WTERMSIG(status));
    throw Error(who + " crashed (" + (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(WTERMSIG(status))) +
                ")");
  }
  if (!text.empty() && text[0] == 'P' && text.size() > 1) return text.substr(1);
  if (!text.empty() && text[0] == 'E') throw Error(who + " failed: " + text.substr(1));
  throw Error(who + ": the probe process exited with status " + std::to_string(WEXITSTATUS(status)) +
              " and no platform name");
}

}  // namespace meshtest::pjrt
