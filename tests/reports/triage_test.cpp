// Triage (reports/triage.h) on the scripted broken nightly (broken_nightly.h),
// written through the real store API into an SQLite file: groups, classes,
// components, new / persisting / flaky / fixed labels, the comparison
// windows, and the dashboard's triage section.
#include "reports/triage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "reports/dashboard.h"
#include "reports/triage_text.h"
#include "tests/reports/broken_nightly.h"

namespace meshtest::reports {
namespace {

namespace fs = std::filesystem;
using testing::kRerun;
using testing::kToday;
using testing::kYesterday;

class TriageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("meshtest_triage_" + std::to_string(getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
    fs::remove(path_);
    store_ = open_store(path_.string());
    classes_ = std::make_shared<const FailureClasses>(testing::shipped_failure_classes());
    testing::write_broken_nightly(*store_, *classes_);
  }
  void TearDown() override {
    store_.reset();
    fs::remove(path_);
  }

  Triage triage(const TriageWindow& window, const TriageOptions& base = {}) {
    const TriageRuns runs = load_triage_runs(*store_, window);
    TriageOptions options = base;
    options.previous_only = runs.previous_only;
    return triage_run(runs.run, runs.earlier, options, failure_classifier(classes_));
  }

  fs::path path_;
  std::unique_ptr<ResultStore> store_;
  std::shared_ptr<const FailureClasses> classes_;
};

const TriageGroup& group_of(const std::vector<TriageGroup>& groups, const std::string& name) {
  for (const TriageGroup& g : groups) {
    if (g.failure.name == name) return g;
  }
  throw Error("no group " + name);
}

const TriageCase& case_of(const TriageGroup& g, const std::string& test_id, const std::string& arch = "n150") {
  for (const TriageCase& c : g.cases) {
    if (c.test_id == test_id && c.arch == arch) return c;
  }
  throw Error("no case " + test_id + " on " + arch + " in " + g.failure.name);
}

std::string id(const std::string& model, const std::string& variant) {
  return model + "/native-" + variant + "-single_device-inference";
}

TEST_F(TriageTest, TodaysFortyFailuresFallIntoSixGroupsWithClassesAndComponents) {
  const Triage t = triage({kToday, "", 0});
  EXPECT_EQ(t.run.run_id, kToday);
  EXPECT_EQ(t.failing_cases(), 40u);
  ASSERT_EQ(t.groups.size(), 6u);
  // New groups first (larger first), then persisting ones.
  const std::vector<std::tuple<std::string, std::string, std::string, size_t>> want = {
      {"new", "TIMEOUT", "infrastructure", 7},
      {"new", "PJRT_COMPILE_INVALID_ARGUMENT", "compiler", 5},
      {"new", "FILECHECK_FAILED", "compiler", 2},
      {"persisting", "PCC_BELOW_THRESHOLD", "comparison", 12},
      {"persisting", "DEVICE_DRAM_OOM", "device", 10},
      {"persisting", "CRASH_SIGSEGV", "runtime", 4}};
  for (size_t i = 0; i < want.size(); ++i) {
    const TriageGroup& g = t.groups[i];
    EXPECT_EQ(std::tuple(std::string(triage_label_name(g.label)), g.failure.name, g.failure.component, g.cases.size()),
              want[i])
        << "group " << i;
  }
  EXPECT_EQ(group_of(t.groups, "PCC_BELOW_THRESHOLD").failure.summary, "logits");
  EXPECT_EQ(group_of(t.groups, "DEVICE_DRAM_OOM").failure.summary, "402653184 bytes");
  EXPECT_EQ(group_of(t.groups, "FILECHECK_FAILED").failure.summary, "fuse_matmul.mlir");
  EXPECT_EQ(t.xfailed, 1u);
}

TEST_F(TriageTest, EachCaseIsNewPersistingOrFlakyAgainstYesterday) {
  const Triage t = triage({kToday, "", 0});
  const TriageGroup& pcc = group_of(t.groups, "PCC_BELOW_THRESHOLD");
  EXPECT_EQ(pcc.count(TriageLabel::Persisting), 10u);
  EXPECT_EQ(pcc.count(TriageLabel::New), 2u);
  const TriageCase& persisting = case_of(pcc, id("bert", "layer03"));
  EXPECT_EQ(persisting.label, TriageLabel::Persisting);
  EXPECT_EQ(persisting.since.run_id, kYesterday);
  EXPECT_EQ(persisting.since.git_sha, "aaa1111");
  EXPECT_EQ(pcc.since.run_id, kYesterday);
  EXPECT_EQ(case_of(pcc, id("bert", "layer10")).label, TriageLabel::New);  // passed yesterday
  // Failed yesterday too, but another way (NaN): new in this group.
  EXPECT_EQ(case_of(pcc, id("bert", "layer11")).label, TriageLabel::New);

  // Per arch: llama seq09 passed on p150 yesterday (it failed so on n150): new on p150.
  const TriageGroup& oom = group_of(t.groups, "DEVICE_DRAM_OOM");
  EXPECT_EQ(case_of(oom, id("llama", "seq08"), "p150").label, TriageLabel::Persisting);
  EXPECT_EQ(case_of(oom, id("llama", "seq09"), "p150").label, TriageLabel::New);
  EXPECT_EQ(oom.count(TriageLabel::Persisting), 9u);

  const TriageGroup& crash = group_of(t.groups, "CRASH_SIGSEGV");
  const TriageCase& flaky = case_of(crash, id("yolo", "v00"));
  EXPECT_EQ(flaky.label, TriageLabel::Flaky);  // passed only on retry yesterday
  EXPECT_EQ(flaky.history, "PF");
  EXPECT_EQ(crash.count(TriageLabel::Flaky), 2u);
  EXPECT_EQ(case_of(crash, id("yolo", "v02")).label, TriageLabel::Persisting);
  EXPECT_EQ(case_of(crash, id("yolo", "v03")).label, TriageLabel::New);

  // Per backend: yesterday ran nothing on pjrt, so its cases are new and compared with no run.
  for (const TriageCase& c : group_of(t.groups, "PJRT_COMPILE_INVALID_ARGUMENT").cases) {
    EXPECT_EQ(c.backend, "pjrt");
    EXPECT_EQ(c.label, TriageLabel::New);
  }
  ASSERT_EQ(t.scopes.size(), 3u);
  for (const TriageScope& s : t.scopes) {
    if (s.backend == "pjrt") {
      EXPECT_TRUE(s.compared.empty());
    } else {
      ASSERT_EQ(s.compared.size(), 1u) << s.arch;
      EXPECT_EQ(s.compared[0].run_id, kYesterday);  // its results have no backend: simulated
    }
  }
}

TEST_F(TriageTest, FixedCasesAreListedApartAndALoweredThresholdIsNoFix) {
  const Triage t = triage({kToday, "", 0});
  ASSERT_EQ(t.fixed.size(), 2u);
  const TriageCase& nan = case_of(group_of(t.fixed, "NON_FINITE_OUTPUT"), id("gpt2", "nan00"));
  EXPECT_EQ(nan.label, TriageLabel::Fixed);
  EXPECT_NE(nan.message.find("non-finite values"), std::string::npos);
  const TriageGroup& oom = group_of(t.fixed, "DEVICE_DRAM_OOM");
  ASSERT_EQ(oom.cases.size(), 1u);
  EXPECT_EQ(oom.cases[0].arch, "n150");  // fixed on n150 while new on p150
  for (const TriageGroup& g : t.fixed) {
    for (const TriageCase& c : g.cases) EXPECT_NE(c.test_id, id("bert", "threshold00"));
  }
}

TEST_F(TriageTest, TheRerunFixesTheTimeoutsAndPersistsTheRestSinceToday) {
  const Triage t = triage({});  // the latest run, against the previous one
  EXPECT_EQ(t.run.run_id, kRerun);
  EXPECT_EQ(t.groups.size(), 5u);
  EXPECT_EQ(t.failing_cases(), 33u);
  ASSERT_EQ(t.fixed.size(), 1u);
  EXPECT_EQ(t.fixed[0].failure.name, "TIMEOUT");
  EXPECT_EQ(t.fixed[0].cases.size(), 7u);
  for (const TriageGroup& g : t.groups) {
    EXPECT_EQ(g.label, TriageLabel::Persisting) << g.failure.name;
    EXPECT_EQ(g.since.run_id, kToday) << g.failure.name;
    EXPECT_EQ(g.since.git_sha, "bbb2222");
    EXPECT_EQ(g.count(TriageLabel::Persisting), g.cases.size()) << g.failure.name;
  }
}

TEST_F(TriageTest, DaysWidenTheWindowToYesterday) {
  const Triage one_day = triage({kRerun, "", 1});  // 2026-11-09T14:00 on: today only
  ASSERT_EQ(one_day.scopes.size(), 3u);
  for (const TriageScope& s : one_day.scopes) EXPECT_EQ(s.compared.size(), 1u);
  const Triage t = triage({kRerun, "", 2});
  const TriageGroup& pcc = group_of(t.groups, "PCC_BELOW_THRESHOLD");
  EXPECT_EQ(case_of(pcc, id("bert", "layer03")).since.run_id, kYesterday);  // the first run of the window
  EXPECT_EQ(case_of(pcc, id("bert", "layer10")).since.run_id, kToday);
  EXPECT_EQ(pcc.since.git_sha, "aaa1111");
  const TriageCase& flaky = case_of(group_of(t.groups, "CRASH_SIGSEGV"), id("yolo", "v01"));
  EXPECT_EQ(flaky.label, TriageLabel::Flaky);
  EXPECT_EQ(flaky.history, "PFF");
  EXPECT_EQ(t.fixed.size(), 1u);  // the timeouts; yesterday's fixes were fixed by today already
}

TEST_F(TriageTest, AgainstOneRunAndPerArchOrBackend) {
  const Triage t = triage({kRerun, kYesterday, 0});
  EXPECT_THROW(group_of(t.groups, "TIMEOUT"), Error);  // none in the rerun; they passed yesterday
  ASSERT_EQ(t.fixed.size(), 2u);                       // the NaN and n150's OOM; not the lowered threshold
  EXPECT_EQ(group_of(t.fixed, "NON_FINITE_OUTPUT").cases.size(), 1u);

  TriageOptions p150;
  p150.arch = "p150";
  const Triage on_p150 = triage({kToday, "", 0}, p150);
  ASSERT_EQ(on_p150.groups.size(), 1u);
  EXPECT_EQ(on_p150.groups[0].failure.name, "DEVICE_DRAM_OOM");
  EXPECT_EQ(on_p150.groups[0].cases.size(), 2u);
  EXPECT_TRUE(on_p150.fixed.empty());
  TriageOptions pjrt;
  pjrt.backend = "pjrt";
  const Triage on_pjrt = triage({kToday, "", 0}, pjrt);
  ASSERT_EQ(on_pjrt.groups.size(), 1u);
  EXPECT_EQ(on_pjrt.groups[0].cases.size(), 5u);
}

// A crash (SIGSEGV) attempt of `id`, as the process pool records it, or a pass.
CaseResult attempt(const std::string& test_id, bool crashed, int number) {
  CaseResult r;
  r.test_id = test_id;
  r.arch = "n150";
  r.backend = "simulated";
  r.attempt = number;
  r.phase = "execute";
  r.outcome = crashed ? Outcome::Error : Outcome::Passed;
  r.failure_kind = crashed ? FailureKind::Crash : FailureKind::None;
  r.error_message = crashed ? "worker crashed with SIGSEGV (Segmentation fault)" : "";
  return r;
}

TEST(TriageGroups, FlakyAndNewCasesMakeANewGroupNotAPersistingOne) {
  RunResults before, now;
  before.run.run_id = "before";
  now.run.run_id = "now";
  before.results = {attempt("a", true, 1), attempt("a", false, 2), attempt("b", false, 1)};
  now.results = {attempt("a", true, 1), attempt("b", true, 1)};
  const auto classes = std::make_shared<const FailureClasses>(testing::shipped_failure_classes());
  const std::vector<RunResults> earlier = {before};
  const Triage t = triage_run(now, earlier, {}, failure_classifier(classes));
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(t.groups[0].count(TriageLabel::Flaky), 1u);
  EXPECT_EQ(t.groups[0].count(TriageLabel::New), 1u);
  EXPECT_EQ(t.groups[0].label, TriageLabel::New);  // nothing failed this way before
  EXPECT_TRUE(t.groups[0].since.empty());
}

TEST_F(TriageTest, UnknownRunsAndAgainstItselfAreErrors) {
  EXPECT_THROW(triage({"no-such-run", "", 0}), Error);
  EXPECT_THROW(triage({kToday, "no-such-run", 0}), Error);
  EXPECT_THROW(triage({kToday, kToday, 0}), Error);
}

TEST(TriageClassifier, StoredClassFirstElseClassifiedElseUnclassified) {
  CaseResult r;
  r.outcome = Outcome::Error;
  r.failure_kind = FailureKind::Crash;
  r.phase = "execute";
  r.error_message = "worker crashed with SIGSEGV (Segmentation fault)\nsecond line";
  const Classification none = failure_classifier(nullptr)(r);
  EXPECT_EQ(none.name, "UNCLASSIFIED");
  EXPECT_EQ(none.summary, "worker crashed with SIGSEGV (Segmentation fault)");
  const auto classes = std::make_shared<const FailureClasses>(testing::shipped_failure_classes());
  EXPECT_EQ(failure_classifier(classes)(r).name, "CRASH_SIGSEGV");
  r.failure_class = "MY_OWN";
  r.failure_component = "harness";
  r.failure_summary = "stored";
  EXPECT_EQ(failure_classifier(classes)(r).component, "harness");
  r.failure_class = "UNCLASSIFIED";  // stored before a class matched it: classified again
  EXPECT_EQ(failure_classifier(classes)(r).name, "CRASH_SIGSEGV");
}

TEST_F(TriageTest, JsonHasStableKeysAndTheMarkdownAGroupTable) {
  const Triage t = triage({kToday, "", 0});
  const auto json = nlohmann::json::parse(triage_json(t));
  EXPECT_EQ(json["counts"]["failing"], 40);
  EXPECT_EQ(json["counts"]["groups"], 6);
  EXPECT_EQ(json["counts"]["fixed"], 2);
  EXPECT_EQ(json["run"]["git_sha"], "bbb2222");
  const auto& first = json["groups"][0];
  for (const char* key : {"label", "class", "component", "summary", "since", "counts", "cases"}) {
    EXPECT_TRUE(first.contains(key)) << key;
  }
  for (const char* key : {"test_id", "arch", "backend", "outcome", "label", "since", "history", "message"}) {
    EXPECT_TRUE(first["cases"][0].contains(key)) << key;
  }
  const std::string md = triage_markdown(t);
  EXPECT_NE(md.find("| 1 | new | 7 | 0 | 0 | TIMEOUT | infrastructure | 600s | 7 |  |"), std::string::npos) << md;
  EXPECT_NE(md.find("**40 failing cases in 6 groups"), std::string::npos);
  const std::string console = triage_console(t);
  EXPECT_NE(console.find("FIXED (2)"), std::string::npos) << console;
}

TEST_F(TriageTest, TheDashboardHasATriageSectionForTheLatestRun) {
  std::vector<RunResults> runs = load_recent_runs(*store_, 3, "n150");
  DashboardOptions options;
  options.classify = failure_classifier(classes_);
  const std::string html = render_dashboard(runs, options);
  const size_t at = html.find("<section id=\"triage\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("Fixed since the previous run"), std::string::npos);
  EXPECT_NE(section.find("<td>TIMEOUT</td>"), std::string::npos);  // fixed by the rerun
  EXPECT_NE(section.find("<td>CRASH_SIGSEGV</td>"), std::string::npos);
  EXPECT_EQ(section.find("p150"), std::string::npos);  // the page's arch only
}

}  // namespace
}  // namespace meshtest::reports
