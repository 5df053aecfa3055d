// JUnit XML that CI tools read without special parsing: standard <testcase>
// with <failure>, <error>, <skipped>; every record field as a <property>
// whose value is JSON. Attempts run again under --reruns are kept as
// <flakyFailure>/<rerunFailure> (Maven Surefire's elements, which
// pytest-rerunfailures writes too) inside the case's final <testcase>.
#pragma once

#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports {

// `results`: each case's final attempt; `reruns`: the earlier attempts that failed and were run again.
std::string junit_xml(const RunInfo& run, const std::vector<CaseResult>& results,
                      const std::vector<CaseResult>& reruns = {});
// Writes atomically (temp file + rename); throws meshtest::Error on I/O failure.
void write_junit_xml(const std::string& path, const RunInfo& run, const std::vector<CaseResult>& results,
                     const std::vector<CaseResult>& reruns = {});

// XML-escapes text for attributes and element content (also drops characters
// XML 1.0 cannot carry).
std::string xml_escape(const std::string& text);

}  // namespace meshtest::reports
