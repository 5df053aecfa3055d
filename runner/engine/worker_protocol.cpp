// Encoding and decoding of worker status messages.
#include "runner/engine/worker_protocol.h"

#include "reports/result_json.h"

namespace meshtest::runner {

using nlohmann::json;
using reports::CaseResult;

std::string encode_phase_message(std::string_view phase) { return "P " + std::string(phase) + "\n"; }
std::string encode_heartbeat_message() { return "H\n"; }
std::string encode_result_message(const CaseResult& result) {
  return "R " + reports::result_to_json(result).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

WorkerMessage decode_message(std::string_view line) {
  WorkerMessage m;
  if (line == "H") {
    m.kind = WorkerMessage::Kind::Heartbeat;
  } else if (line.rfind("P ", 0) == 0) {
    m.kind = WorkerMessage::Kind::Phase;
    m.phase = std::string(line.substr(2));
  } else if (line.rfind("R ", 0) == 0) {
    const json j = json::parse(line.substr(2), nullptr, false);
    if (j.is_object()) {
      m.kind = WorkerMessage::Kind::Result;
      m.result = reports::result_from_json(j);
    }
  }
  return m;
}

std::optional<std::string> LineReader::next() {
  const size_t end = buffer_.find('\n', start_);
  if (end == std::string::npos) {
    buffer_.erase(0, start_);
    start_ = 0;
    return std::nullopt;
  }
  std::string line = buffer_.substr(start_, end - start_);
  start_ = end + 1;
  return line;
}

}  // namespace meshtest::runner
