// What an isolated worker tells its parent over the status pipe, one message
// per line: "P <phase>" (entered a phase), "H" (heartbeat: still alive) and
// "R <json>" (the finished record). The parent decodes with LineReader +
// decode_message; a worker that dies leaves its last phase behind.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reports/case_result.h"

namespace meshtest::runner {

struct WorkerMessage {
  enum class Kind { Phase, Heartbeat, Result, Invalid };
  Kind kind = Kind::Invalid;
  std::string phase;           // Kind::Phase
  reports::CaseResult result;  // Kind::Result
};

std::string encode_phase_message(std::string_view phase);
std::string encode_heartbeat_message();
std::string encode_result_message(const reports::CaseResult& result);
WorkerMessage decode_message(std::string_view line);

// Splits a byte stream into lines (without the '\n').
class LineReader {
 public:
  void feed(const char* data, size_t size) { buffer_.append(data, size); }
  std::optional<std::string> next();

 private:
  std::string buffer_;
  size_t start_ = 0;
};

}  // namespace meshtest::runner
