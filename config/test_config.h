// Expectations from test_config/**/*.yaml: per test id, the expected status
// and the thresholds of its checks. Every problem found while loading becomes
// a diagnostic "file:line:column: message" (1-based); loading goes on so all
// problems are reported in one pass.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/test_status.h"

namespace meshtest::config {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string to_string() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
  std::string to_string() const { return where.to_string() + ": " + message; }
};

struct TestEntry {
  TestStatus status = TestStatus::Unspecified;
  std::string reason;
  std::optional<BringupStatus> bringup_status;
  std::optional<double> required_pcc;
  std::optional<bool> assert_pcc;
  std::optional<double> required_atol;
  std::optional<bool> assert_atol;
  std::optional<bool> assert_allclose;
  std::optional<double> allclose_rtol;
  std::optional<double> allclose_atol;
  std::vector<std::string> markers;
  std::vector<std::string> supported_archs;  // empty: the defaults (n150, p150)
  std::optional<int64_t> batch_size;
  std::optional<int64_t> seq_len;
  std::optional<int> optimization_level;  // 0, 1, 2
  std::optional<bool> enable_weight_bfp8_conversion;
  std::optional<std::string> execution_pass;  // FORWARD | BACKWARD
  std::vector<std::string> filechecks;        // FileCheck pattern files run against --serialize dumps
  std::optional<double> timeout_seconds;      // meshtest's own: per-case deadline
  bool flaky = false;                         // meshtest's own: failures do not fail the run
  SourceLocation defined_at;
};

struct TestConfig {
  std::map<std::string, TestEntry> entries;  // test id -> entry
  const TestEntry* find(const std::string& test_id) const {
    auto it = entries.find(test_id);
    return it == entries.end() ? nullptr : &it->second;
  }
};

// Loads and merges every *.yaml under `dir` (recursively, sorted by path).
// A missing directory gives an empty config.
TestConfig load_test_config(const std::string& dir, std::vector<Diagnostic>& diagnostics);

}  // namespace meshtest::config
