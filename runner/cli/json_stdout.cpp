// Keeping stdout for `--json -` (see json_stdout.h).
#include "runner/cli/json_stdout.h"

#include <fcntl.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace meshtest::runner {

int reserve_stdout_for_json() {
  std::cout.flush();
  std::fflush(stdout);
  // Above 2, so that no later open() of 0-2 can take it; close-on-exec, so
  // that a child that execs (mutate, codegen builds) does not hold it.
  const int json_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return json_fd;
  spdlog::set_default_logger(spdlog::stderr_color_mt("meshtest"));
  return json_fd;
}

}  // namespace meshtest::runner
