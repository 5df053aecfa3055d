// Running a shell command from a case's pipeline (FileCheck, building and
// running generated code): quoting, and the command's exit status and output.
#pragma once

#include <string>

namespace meshtest::runner {

// `s` as one single-quoted shell word.
std::string shell_quote(const std::string& s);

struct CommandResult {
  bool ok = false;     // exited with status 0
  std::string output;  // stdout (and stderr when the command redirects it)
};

// Runs `command` with /bin/sh; throws meshtest::Error when it cannot start.
CommandResult run_shell(const std::string& command);

}  // namespace meshtest::runner
