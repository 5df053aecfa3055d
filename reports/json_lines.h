// JSON lines (`--json FILE`): one line per result as it finishes, the same
// fields as the JUnit properties plus run_id; flushed per line so a killed
// run keeps every finished result. The path "-" is stdout (a descriptor: the
// CLI keeps the original stdout apart from descriptor 1, runner/cli/json_stdout.h).
#pragma once

#include <fstream>
#include <string>

#include "reports/case_result.h"

namespace meshtest::reports {

class JsonLinesWriter {
 public:
  // Truncates `path` ("-": writes to `stdout_fd`); throws meshtest::Error when it cannot be written.
  explicit JsonLinesWriter(const std::string& path, int stdout_fd = 1);
  void write(const std::string& run_id, const CaseResult& result);

 private:
  std::string path_;
  std::ofstream file_;  // a file path
  int stdout_fd_ = -1;  // "-"
};

}  // namespace meshtest::reports
