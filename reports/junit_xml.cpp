// JUnit XML writer.
#include "reports/junit_xml.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "reports/result_json.h"

namespace meshtest::reports {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (c >= 0x20) out += static_cast<char>(c);  // other control characters are not XML 1.0
        break;
    }
  }
  return out;
}

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string failure_detail(const CaseResult& r) {
  return "[" + r.bringup_status + "] phase " + r.phase +
         (r.failure_kind != FailureKind::None ? " (" + std::string(failure_kind_name(r.failure_kind)) + ")" : "") +
         ": " + r.error_message;
}

// Earlier attempts of a case run again (--reruns), as Maven Surefire and
// pytest-rerunfailures write them: <flakyFailure>/<flakyError> when the case
// passed in the end, <rerunFailure>/<rerunError> when it never did.
void write_reruns(std::ostringstream& xml, const CaseResult& final_result, const std::vector<const CaseResult*>& earlier) {
  const std::string kind = final_result.outcome == Outcome::Passed ? "flaky" : "rerun";
  for (const CaseResult* r : earlier) {
    const std::string element = kind + (r->outcome == Outcome::Error ? "Error" : "Failure");
    xml << "    <" << element << " message=\"" << xml_escape(r->error_message) << "\" type=\""
        << xml_escape(r->bringup_status) << "\"><stackTrace>attempt " << r->attempt << ": "
        << xml_escape(failure_detail(*r)) << "</stackTrace></" << element << ">\n";
  }
}

void write_case(std::ostringstream& xml, const CaseResult& r, const std::vector<const CaseResult*>& earlier) {
  xml << "  <testcase classname=\"" << xml_escape(r.loader_dir) << "\" name=\"" << xml_escape(r.test_id)
      << "\" time=\"" << seconds(r.wall_seconds) << "\" timestamp=\"" << xml_escape(r.started_at) << "\">\n";
  xml << "    <properties>\n";
  const nlohmann::json j = result_to_json(r);
  for (auto it = j.begin(); it != j.end(); ++it) {
    xml << "      <property name=\"" << xml_escape(it.key()) << "\" value=\"" << xml_escape(it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << "\"/>\n";
  }
  xml << "    </properties>\n";
  const std::string detail = failure_detail(r);
  switch (r.outcome) {
    case Outcome::Passed: break;
    case Outcome::Failed:
      xml << "    <failure type=\"" << xml_escape(r.bringup_status) << "\" message=\"" << xml_escape(r.error_message)
          << "\">" << xml_escape(detail) << "</failure>\n";
      break;
    case Outcome::Error:
      xml << "    <error type=\"" << xml_escape(r.bringup_status) << "\" message=\"" << xml_escape(r.error_message)
          << "\">" << xml_escape(detail) << "</error>\n";
      break;
    case Outcome::Skipped:
      xml << "    <skipped message=\"" << xml_escape(r.reason) << "\"/>\n";
      break;
    case Outcome::Xfailed:
      xml << "    <skipped type=\"pytest.xfail\" message=\"" << xml_escape(r.reason) << "\">" << xml_escape(detail)
          << "</skipped>\n";
      break;
    case Outcome::Xpassed:
      xml << "    <failure type=\"XPASS\" message=\"[XPASS(strict)] " << xml_escape(r.reason)
          << "\">expected to fail but passed</failure>\n";
      break;
  }
  write_reruns(xml, r, earlier);
  if (!r.captured_output.empty()) {
    xml << "    <system-out>" << xml_escape(r.captured_output) << "</system-out>\n";
  }
  xml << "  </testcase>\n";
}

}  // namespace

std::string junit_xml(const RunInfo& run, const std::vector<CaseResult>& results,
                      const std::vector<CaseResult>& reruns) {
  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const CaseResult& r : results) {
    total += r.wall_seconds;
    failures += r.outcome == Outcome::Failed || r.outcome == Outcome::Xpassed;
    errors += r.outcome == Outcome::Error;
    skipped += r.outcome == Outcome::Skipped || r.outcome == Outcome::Xfailed;
  }
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites>\n";
  xml << " <testsuite name=\"meshtest\" tests=\"" << results.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << seconds(total)
      << "\" timestamp=\"" << xml_escape(run.started_at) << "\" hostname=\"" << xml_escape(run.host) << "\">\n";
  xml << "  <properties>\n";
  const nlohmann::json rj = run_to_json(run);
  for (auto it = rj.begin(); it != rj.end(); ++it) {
    xml << "   <property name=\"run." << xml_escape(it.key()) << "\" value=\"" << xml_escape(it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << "\"/>\n";
  }
  xml << "  </properties>\n";
  std::map<std::string, std::vector<const CaseResult*>> earlier;  // test id -> attempts run again
  for (const CaseResult& r : reruns) earlier[r.test_id].push_back(&r);
  for (const CaseResult& r : results) write_case(xml, r, earlier[r.test_id]);
  xml << " </testsuite>\n</testsuites>\n";
  return xml.str();
}

void write_junit_xml(const std::string& path, const RunInfo& run, const std::vector<CaseResult>& results,
                     const std::vector<CaseResult>& reruns) {
  write_file_atomically(path, junit_xml(run, results, reruns), "JUnit XML");
}

}  // namespace meshtest::reports
