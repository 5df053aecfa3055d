// Encoding and decoding of worker status messages.
#include "runner/engine/worker_protocol.h"

#include <cmath>

#include "reports/result_json.h"

namespace meshtest::runner {

using nlohmann::json;
using reports::CaseResult;

namespace {

double number(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || !it->is_number() ? NAN : it->get<double>();
}

reports::Outcome outcome_from(const std::string& name) {
  for (auto o : {reports::Outcome::Passed, reports::Outcome::Failed, reports::Outcome::Skipped,
                 reports::Outcome::Xfailed, reports::Outcome::Xpassed}) {
    if (reports::outcome_name(o) == name) return o;
  }
  return reports::Outcome::Error;
}

reports::FailureKind failure_kind_from(const std::string& name) {
  for (auto k : {reports::FailureKind::Exception, reports::FailureKind::Crash, reports::FailureKind::Hang,
                 reports::FailureKind::Timeout, reports::FailureKind::Oom}) {
    if (reports::failure_kind_name(k) == name) return k;
  }
  return reports::FailureKind::None;
}

}  // namespace

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
      m.result = result_from_json(j);
    }
  }
  return m;
}

CaseResult result_from_json(const json& j) {
  CaseResult r;
  auto text = [&](const char* key, std::string& field) { field = j.value(key, std::string()); };
  text("test_id", r.test_id);
  text("loader_dir", r.loader_dir);
  text("model", r.model);
  text("variant", r.variant);
  text("parallelism", r.parallelism);
  text("run_mode", r.run_mode);
  text("group", r.group);
  text("task", r.task);
  text("source", r.source);
  text("framework", r.framework);
  text("arch", r.arch);
  text("mesh", r.mesh);
  text("status", r.status);
  text("reason", r.reason);
  text("bringup_status", r.bringup_status);
  text("phase", r.phase);
  text("error_message", r.error_message);
  text("execution_pass", r.execution_pass);
  text("started_at", r.started_at);
  text("finished_at", r.finished_at);
  r.markers = j.value("markers", std::vector<std::string>{});
  r.outcome = outcome_from(j.value("outcome", std::string()));
  r.failure_kind = failure_kind_from(j.value("failure_kind", std::string()));
  r.pcc = number(j, "pcc");
  r.atol = number(j, "atol");
  r.rel_l2 = number(j, "rel_l2");
  r.required_pcc = number(j, "required_pcc");
  r.required_atol = number(j, "required_atol");
  r.assert_pcc = j.value("assert_pcc", true);
  r.assert_atol = j.value("assert_atol", false);
  r.assert_allclose = j.value("assert_allclose", false);
  for (const json& o : j.value("outputs", json::array())) {
    r.outputs.push_back({o.value("name", std::string()), number(o, "pcc"), number(o, "atol"), number(o, "rel_l2"),
                         o.value("passed", false), o.value("kind", std::string("output"))});
  }
  const json seconds = j.value("seconds", json::object());
  r.seconds = {seconds.value("load", 0.0), seconds.value("golden", 0.0), seconds.value("compile", 0.0),
               seconds.value("execute", 0.0), seconds.value("compare", 0.0)};
  r.wall_seconds = j.value("wall_seconds", 0.0);
  r.peak_host_rss_bytes = j.value("peak_host_rss_bytes", int64_t{0});
  r.peak_device_dram_bytes = j.value("peak_device_dram_bytes", int64_t{0});
  r.device_ops = j.value("device_ops", int64_t{0});
  r.per_chip_peak_dram_bytes = j.value("per_chip_peak_dram_bytes", std::vector<int64_t>{});
  r.collectives_executed = j.value("collectives_executed", int64_t{0});
  r.bytes_moved_between_chips = j.value("bytes_moved_between_chips", int64_t{0});
  r.device_bytes_leaked = j.value("device_bytes_leaked", int64_t{0});
  text("sharding_fallbacks", r.sharding_fallbacks);
  r.compile_cache_hit = j.value("compile_cache_hit", false);
  r.attempt = j.value("attempt", 1);
  return r;
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
