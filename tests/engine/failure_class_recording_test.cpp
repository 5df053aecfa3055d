// The run loop classifies every attempt before it is recorded (LoopOptions::
// failure_classes, reports/failure_classes.h): a worker crash or timeout made
// by the parent gets a class like an exception inside the case; passed
// results keep none; a loop without classes leaves results as they are.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "runner/engine/run_loop.h"

namespace meshtest::runner {
namespace {

using reports::CaseResult;
using reports::FailureKind;
using reports::Outcome;

// Finishes each started case at once with the result given for its id.
class ScriptedExecutor : public CaseExecutor {
 public:
  explicit ScriptedExecutor(std::map<std::string, CaseResult> results) : results_(std::move(results)) {}
  void start(const TestCase& test_case, int attempt, const CaseLimits&) override {
    CaseResult r = results_.at(test_case.id);
    r.test_id = test_case.id;
    r.attempt = attempt;
    finished_.push_back(r);
  }
  std::vector<CaseResult> collect_finished(double) override { return std::exchange(finished_, {}); }
  size_t running() const override { return finished_.size(); }

 private:
  std::map<std::string, CaseResult> results_;
  std::vector<CaseResult> finished_;
};

class SilentProgress : public Progress {
 public:
  void started(const std::string&) override {}
  void finished(const CaseResult&, bool) override {}
  void tick() override {}
  void close() override {}
};

CaseResult result(Outcome outcome, FailureKind kind, const std::string& phase, const std::string& message) {
  CaseResult r;
  r.outcome = outcome;
  r.failure_kind = kind;
  r.phase = phase;
  r.error_message = message;
  return r;
}

reports::FailureClasses classes() {
  std::vector<config::Diagnostic> problems;
  reports::FailureClasses c = reports::parse_failure_classes(
      "failure_classes:\n"
      "  - name: CRASH_SIGSEGV\n"
      "    component: runtime\n"
      "    match: {signal: SIGSEGV}\n"
      "  - name: TIMEOUT\n"
      "    component: infrastructure\n"
      "    match: {kind: timeout}\n",
      "classes.yaml", problems);
  EXPECT_TRUE(problems.empty());
  return c;
}

std::map<std::string, CaseResult> recorded_by_id(const LoopOptions& options) {
  std::vector<TestCase> cases(4);
  cases[0].id = "crash";
  cases[1].id = "timeout";
  cases[2].id = "other";
  cases[3].id = "passed";
  ScriptedExecutor executor({
      {"crash",
       result(Outcome::Error, FailureKind::Crash, "execute", "worker crashed with SIGSEGV (Segmentation fault)")},
      {"timeout", result(Outcome::Xfailed, FailureKind::Timeout, "compile", "timed out: the 2s deadline passed")},
      {"other", result(Outcome::Failed, FailureKind::Exception, "golden", "op #0 embedding: id 99\nmore")},
      {"passed", result(Outcome::Passed, FailureKind::None, "done", "")},
  });
  std::vector<const TestCase*> selected;
  for (const TestCase& c : cases) selected.push_back(&c);
  SilentProgress progress;
  std::map<std::string, CaseResult> recorded;
  run_cases(selected, {}, executor, options, progress, [&](const CaseResult& r) { recorded[r.test_id] = r; });
  return recorded;
}

TEST(FailureClassRecording, EveryRecordedFailureGetsItsClassInTheParent) {
  const reports::FailureClasses failure_classes = classes();
  LoopOptions options;
  options.failure_classes = &failure_classes;
  const std::map<std::string, CaseResult> recorded = recorded_by_id(options);
  ASSERT_EQ(recorded.size(), 4u);
  EXPECT_EQ(recorded.at("crash").failure_class, "CRASH_SIGSEGV");
  EXPECT_EQ(recorded.at("crash").failure_component, "runtime");
  EXPECT_EQ(recorded.at("timeout").failure_class, "TIMEOUT");
  EXPECT_EQ(recorded.at("timeout").failure_component, "infrastructure");
  EXPECT_EQ(recorded.at("other").failure_class, "UNCLASSIFIED");
  EXPECT_EQ(recorded.at("other").failure_summary, "op #0 embedding: id 99");
  EXPECT_EQ(recorded.at("passed").failure_class, "");
}

TEST(FailureClassRecording, WithoutClassesResultsAreLeftAsTheyAre) {
  const std::map<std::string, CaseResult> recorded = recorded_by_id(LoopOptions{});
  for (const auto& [id, r] : recorded) EXPECT_EQ(r.failure_class, "") << id;
}

}  // namespace
}  // namespace meshtest::runner
