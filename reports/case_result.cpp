// Names of outcomes and failure kinds; timestamps.
#include "reports/case_result.h"

#include <chrono>
#include <ctime>

namespace meshtest::reports {

Outcome parse_outcome(std::string_view name) {
  for (Outcome o : {Outcome::Passed, Outcome::Failed, Outcome::Skipped, Outcome::Xfailed, Outcome::Xpassed}) {
    if (outcome_name(o) == name) return o;
  }
  return Outcome::Error;
}

std::string_view outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Passed: return "passed";
    case Outcome::Failed: return "failed";
    case Outcome::Skipped: return "skipped";
    case Outcome::Xfailed: return "xfailed";
    case Outcome::Xpassed: return "xpassed";
    case Outcome::Error: return "error";
  }
  return "error";
}

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::None: return "";
    case FailureKind::Exception: return "exception";
    case FailureKind::Crash: return "crash";
    case FailureKind::Hang: return "hang";
    case FailureKind::Timeout: return "timeout";
    case FailureKind::Oom: return "oom";
  }
  return "";
}

FailureKind parse_failure_kind(std::string_view name) {
  for (FailureKind k : {FailureKind::Exception, FailureKind::Crash, FailureKind::Hang, FailureKind::Timeout,
                        FailureKind::Oom}) {
    if (failure_kind_name(k) == name) return k;
  }
  return FailureKind::None;
}

std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t t = system_clock::to_time_t(now);
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace meshtest::reports
