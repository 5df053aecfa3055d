// JUnit XML that CI tools read without special parsing: standard <testcase>
// with <failure>, <error>, <skipped>; every record field as a <property>
// whose value is JSON.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports {

std::string junit_xml(const RunInfo& run, const std::vector<CaseResult>& results);
// Writes atomically (temp file + rename); throws meshtest::Error on I/O failure.
void write_junit_xml(const std::string& path, const RunInfo& run, const std::vector<CaseResult>& results);

// XML-escapes text for attributes and element content (also drops characters
// XML 1.0 cannot carry).
std::string xml_escape(const std::string& text);

}  // namespace meshtest::reports
