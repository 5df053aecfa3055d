// Expected status of a case (from YAML) and bring-up status (what happened),
// with the names engineers already use in test_config files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::config {

enum class TestStatus { ExpectedPassing, KnownFailureXfail, NotSupportedSkip, Unspecified, ExcludeModel };

enum class BringupStatus {
  Passed,
  FailedFeCompilation,
  FailedTtmlirCompilation,
  FailedRuntime,
  IncorrectResult,
  NotStarted,
  Unknown,
};

std::string_view status_name(TestStatus status);    // "EXPECTED_PASSING"
std::string_view status_marker(TestStatus status);  // "expected_passing"
// Accepts the name or its lower-case value; nullopt when neither.
std::optional<TestStatus> parse_status(std::string_view text);
std::vector<std::string> all_status_names();

std::string_view bringup_name(BringupStatus status);  // "FAILED_RUNTIME"
std::optional<BringupStatus> parse_bringup(std::string_view text);
std::vector<std::string> all_bringup_names();

}  // namespace meshtest::config
