// Positions and diagnostics of test_config files: every problem is printed as
// "file:line:column: message" (1-based, like a compiler), warnings as
// "file:line:column: warning: message".
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace meshtest::config {

struct SourceLocation {
  SourceLocation() = default;
  SourceLocation(std::string file_, int line_, int column_) : file(std::move(file_)), line(line_), column(column_) {}
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string to_string() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
  // "file:line", the short form `meshtest show` prints next to a value.
  std::string file_line() const { return file + ":" + std::to_string(line); }
  bool operator==(const SourceLocation&) const = default;
};

enum class Severity { Error, Warning };

struct Diagnostic {
  Diagnostic() = default;
  Diagnostic(SourceLocation where_, std::string message_, Severity severity_ = Severity::Error)
      : where(std::move(where_)), message(std::move(message_)), severity(severity_) {}
  SourceLocation where;
  std::string message;
  Severity severity = Severity::Error;
  std::string to_string() const {
    return where.to_string() + (severity == Severity::Warning ? ": warning: " : ": ") + message;
  }
};

inline size_t count_errors(const std::vector<Diagnostic>& diagnostics) {
  size_t n = 0;
  for (const Diagnostic& d : diagnostics) n += d.severity == Severity::Error;
  return n;
}

}  // namespace meshtest::config
