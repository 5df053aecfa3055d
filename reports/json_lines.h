// JSON lines (`--json FILE`): one line per result as it finishes, the same
// fields as the JUnit properties plus run_id; flushed per line so a killed
// run keeps every finished result. The path "-" is stdout.
#pragma once

#include <fstream>
#include <ostream>
#include <string>

#include "reports/case_result.h"

namespace meshtest::reports {

class JsonLinesWriter {
 public:
  // Truncates `path` ("-": writes to stdout); throws meshtest::Error when it cannot be written.
  explicit JsonLinesWriter(const std::string& path);
  void write(const std::string& run_id, const CaseResult& result);

 private:
  std::string path_;
  std::ofstream file_;
  std::ostream* out_;  // file_ or std::cout
};

}  // namespace meshtest::reports
