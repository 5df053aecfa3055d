// Shared by the whole-binary tests: run a shell command and capture its exit
// status and combined stdout/stderr; read a whole text file; count a string's
// occurrences; a fresh temp folder per test; quote a shell word.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace meshtest::testing {

struct CommandResult {
  int status = -1;     // exit status, or 128 + signal number
  std::string output;  // stdout and stderr together
};

// `word` as one shell word, single-quoted.
inline std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline CommandResult run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  CommandResult r;
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// An empty folder in the temp dir named after `prefix`, this process and the running test.
inline std::filesystem::path fresh_test_dir(const std::string& prefix, const std::string& test_name) {
  // One folder: a parametrized test's name ("Name/3") holds a '/', which
  // would make a nested folder whose parent outlives the test.
  std::string name = test_name;
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (prefix + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace meshtest::testing
