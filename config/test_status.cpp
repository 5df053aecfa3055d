// Names and parsing of TestStatus and BringupStatus.
#include "config/test_status.h"

#include <algorithm>
#include <cctype>

namespace meshtest::config {

namespace {

constexpr TestStatus kStatuses[] = {TestStatus::ExpectedPassing, TestStatus::KnownFailureXfail,
                                    TestStatus::NotSupportedSkip, TestStatus::Unspecified, TestStatus::ExcludeModel};
constexpr BringupStatus kBringups[] = {BringupStatus::Passed,          BringupStatus::FailedFeCompilation,
                                       BringupStatus::FailedTtmlirCompilation, BringupStatus::FailedRuntime,
                                       BringupStatus::IncorrectResult, BringupStatus::NotStarted,
                                       BringupStatus::Unknown};


// Exact name, or the all-lower-case spelling of it.
template <class Enum, size_t N, class NameFn>
std::optional<Enum> parse_enum(std::string_view text, const Enum (&values)[N], NameFn name) {
  for (Enum v : values) {
    const std::string_view n = name(v);
    if (text == n) return v;
    std::string lower(n);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == lower) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view status_name(TestStatus status) {
  switch (status) {
    case TestStatus::ExpectedPassing: return "EXPECTED_PASSING";
    case TestStatus::KnownFailureXfail: return "KNOWN_FAILURE_XFAIL";
    case TestStatus::NotSupportedSkip: return "NOT_SUPPORTED_SKIP";
    case TestStatus::Unspecified: return "UNSPECIFIED";
    case TestStatus::ExcludeModel: return "EXCLUDE_MODEL";
  }
  return "UNSPECIFIED";
}

std::string_view status_marker(TestStatus status) {
  switch (status) {
    case TestStatus::ExpectedPassing: return "expected_passing";
    case TestStatus::KnownFailureXfail: return "known_failure_xfail";
    case TestStatus::NotSupportedSkip: return "not_supported_skip";
    case TestStatus::Unspecified: return "unspecified";
    case TestStatus::ExcludeModel: return "exclude_model";
  }
  return "unspecified";
}

std::optional<TestStatus> parse_status(std::string_view text) { return parse_enum(text, kStatuses, status_name); }

std::vector<std::string> all_status_names() {
  std::vector<std::string> out;
  for (TestStatus s : kStatuses) out.emplace_back(status_name(s));
  return out;
}

std::string_view bringup_name(BringupStatus status) {
  switch (status) {
    case BringupStatus::Passed: return "PASSED";
    case BringupStatus::FailedFeCompilation: return "FAILED_FE_COMPILATION";
    case BringupStatus::FailedTtmlirCompilation: return "FAILED_TTMLIR_COMPILATION";
    case BringupStatus::FailedRuntime: return "FAILED_RUNTIME";
    case BringupStatus::IncorrectResult: return "INCORRECT_RESULT";
    case BringupStatus::NotStarted: return "NOT_STARTED";
    case BringupStatus::Unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

std::optional<BringupStatus> parse_bringup(std::string_view text) { return parse_enum(text, kBringups, bringup_name); }

std::vector<std::string> all_bringup_names() {
  std::vector<std::string> out;
  for (BringupStatus s : kBringups) out.emplace_back(bringup_name(s));
  return out;
}

}  // namespace meshtest::config
