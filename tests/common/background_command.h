// Shared by the whole-binary tests that act on a run while it runs (kill it,
// signal it, restart its database): start a shell command in the background
// with its output in a log file, wait for a number of finished cases in that
// log, wait for the command's exit status.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/common/run_command.h"

namespace meshtest::testing {

// Runs `command` with `sh -c` (use `exec` to make the pid the command's own).
inline pid_t start_background(const std::string& command) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Console lines of finished cases (PASSED/FAILED) in a run's log.
inline size_t finished_lines(const std::string& log_path) {
  const std::string text = read_text_file(log_path);
  return count_occurrences(text, "\nPASSED ") + count_occurrences(text, "\nFAILED ");
}

// Waits (up to 30 s) until the log shows `count` finished cases.
inline void wait_for_finished(const std::string& log_path, size_t count) {
  for (int i = 0; i < 3000 && finished_lines(log_path) < count; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The exit status of `pid`, or 128 + the signal that killed it.
inline int wait_exit(pid_t pid) {
  int raw = 0;
  waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

}  // namespace meshtest::testing
