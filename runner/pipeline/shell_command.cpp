// Shell commands of the pipeline (see shell_command.h).
#include "runner/pipeline/shell_command.h"

#include <array>
#include <cstdio>

#include "core/error.h"

namespace meshtest::runner {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw Error("cannot run " + command);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  result.ok = ::pclose(pipe) == 0;
  return result;
}

}  // namespace meshtest::runner
