// Failure classes as data: test_config/failure_reasons.yaml names the ways a
// case can fail (DEVICE_DRAM_OOM, PCC_BELOW_THRESHOLD, PJRT_INVALID_ARGUMENT,
// ...), each with the component to blame, the phases it applies to and rules
// on the error message, the captured output, the failure kind and the exit
// signal. Loading validates the file like a test_config file ("file:line:col:
// message"); classify() gives a failed result its class (the first that
// matches; UNCLASSIFIED when none does). The file's format is in
// docs/failure-classes.md.
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"
#include "config/test_config.h"
#include "reports/case_result.h"

namespace meshtest::reports {

// The file's name in a test_config folder (config::is_test_config_file skips it) ...
inline constexpr const char* kFailureReasonsFile = config::kFailureReasonsFileName;
// ... or a folder of such files, loaded in name order as one list (a
// project's classes beside meshtest's, each in its own file).
inline constexpr const char* kFailureReasonsFolder = config::kFailureReasonsDirName;
// The class of a failure no class matches; its summary is the message's first line.
inline constexpr const char* kUnclassified = "UNCLASSIFIED";

// One match rule: a test on one field of the result, or all/any/not of rules.
struct MatchRule {
  enum class Kind {
    MessageRegex,
    MessageContains,
    OutputRegex,
    OutputContains,
    FailureKindIs,
    SignalIs,
    All,
    Any,
    Not
  };
  Kind kind = Kind::All;
  std::string text;                 // the regex, substring, failure kind name or signal name as written
  std::optional<std::regex> regex;  // MessageRegex, OutputRegex, SignalIs
  std::vector<MatchRule> rules;     // All, Any, Not (one)
  // A canonical text of the rule ("all(message~/x/, not(kind=oom))"): two
  // rules with the same text match the same results.
  std::string canonical() const;
  bool matches(const CaseResult& result) const;
};

struct FailureClass {
  std::string name;
  std::string description;
  std::string component;  // frontend | compiler | runtime | device | comparison | infrastructure | a project's own
  std::vector<std::string> phases;    // empty: any phase
  std::optional<MatchRule> rule;      // none: every failure in its phases
  std::optional<std::regex> summary;  // its first group that took part in the match is the summary
  // A catch-all placed after the specific classes: it wins only where none of
  // them matched, and matching it too is no overlap worth a warning.
  bool fallback = false;
  config::SourceLocation defined_at;  // the `name:` value
  bool applies_to_phase(std::string_view phase) const;
  bool matches(const CaseResult& result) const;  // phase and rule
};

struct FailureClasses {
  std::string file;  // where they were loaded from ("" : none)
  std::vector<FailureClass> classes;
};

struct Classification {
  std::string name, component, summary;
};

// The phases a class may name (runner/pipeline's phase names and "discover").
const std::vector<std::string>& failure_phase_names();
// The components meshtest's own classes use (others are allowed).
const std::vector<std::string>& known_failure_components();

// Parses one failure_reasons file's text; every problem goes to `diagnostics`
// (errors and warnings, positioned). Classes with errors are left out.
FailureClasses parse_failure_classes(std::string_view text, const std::string& file,
                                     std::vector<config::Diagnostic>& diagnostics);
// Reads and parses `path` (a missing or unreadable file is an error): a
// file, or a failure_reasons folder whose *.yaml files are read in name order
// and checked as one list (a duplicate or shadowed class across files is
// found; the folder beside a failure_reasons.yaml is an error).
FailureClasses load_failure_classes(const std::string& path, std::vector<config::Diagnostic>& diagnostics);

// The failure classes of a test_config folder (or file: its folder): its
// failure_reasons/ folder or failure_reasons.yaml, else those of `shipped_dir`
// (meshtest's own), else "".
std::string find_failure_reasons(const std::string& config_dir, const std::string& shipped_dir);

// Whether a result of this outcome gets a class (failed, error, xfailed).
bool needs_failure_class(Outcome outcome);

// The class of a failed result: the first class that matches it. A later
// class matching too is logged (spdlog warning, once per pair per process)
// unless it is a fallback. None matches: UNCLASSIFIED, component "", the
// message's first line as the summary.
Classification classify(const FailureClasses& classes, const CaseResult& result);

// Every class that matches `result`, in file order (classify takes the first).
std::vector<const FailureClass*> matching_classes(const FailureClasses& classes, const CaseResult& result);

// Sets failure_class, failure_component and failure_summary of `result`:
// classify()'s for a failed/error/xfailed result, empty for any other.
void record_failure_class(const FailureClasses& classes, CaseResult& result);

// The first line of `message`, at most 200 characters.
std::string first_line(std::string_view message);

}  // namespace meshtest::reports
