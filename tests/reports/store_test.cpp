// The result store's contract, run against every back end (SQLite and a real
// PostgreSQL server): every field round-trips, upserts, queries for
// history/diff, and concurrent writer processes lose nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/result_json.h"
#include "reports/result_store.h"
#include "reports/store_schema.h"
#include "tests/reports/sample_results.h"
#include "tests/reports/store_backends.h"

namespace meshtest::reports {
namespace {

using testing::fresh_store;
using testing::full_result;
using testing::quick_result;
using testing::run_info;

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    fresh_ = fresh_store(GetParam());
    if (!fresh_.skip_reason.empty()) GTEST_SKIP() << "SKIPPED " << GetParam() << " store tests: " << fresh_.skip_reason;
    store_ = open_store(fresh_.url);
  }
  testing::FreshStore fresh_;
  std::unique_ptr<ResultStore> store_;
};

TEST_P(StoreTest, EveryFieldRoundTrips) {
  EXPECT_EQ(store_->schema_version(), latest_schema_version());
  const RunInfo run = run_info("run-1", "2026-11-22T01:00:00.000Z");
  store_->begin_run(run);
  const CaseResult r = full_result("bert/masked_lm/native-bert_tiny-single_device-inference");
  store_->record(run.run_id, r);
  store_->finish_run(run.run_id, "2026-11-22T01:05:00.000Z");

  const auto back = store_->run_results("run-1");
  ASSERT_EQ(back.size(), 1u);
  testing::expect_every_field_equal(back[0], r, /*through_json=*/false);
  ASSERT_EQ(back[0].outputs.size(), 4u);
  EXPECT_EQ(back[0].outputs[2].kind, "gradient");  // reported order, kinds kept apart
  RunInfo finished = run;
  finished.finished_at = "2026-11-22T01:05:00.000Z";
  ASSERT_TRUE(store_->find_run("run-1"));
  EXPECT_EQ(run_to_json(*store_->find_run("run-1")), run_to_json(finished));
  EXPECT_FALSE(store_->find_run("nope"));
}

TEST_P(StoreTest, MissingMetricsStayMissing) {
  store_->begin_run(run_info("r", "2026-11-22T01:00:00.000Z"));
  store_->record("r", quick_result("a/x", Outcome::Error, NAN));
  const auto back = store_->run_results("r");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(std::isnan(back[0].pcc));
  EXPECT_TRUE(std::isnan(back[0].atol));
}

TEST_P(StoreTest, GuidanceTagsAreStored) {
  store_->begin_run(run_info("r", "2026-11-22T01:00:00.000Z"));
  CaseResult r = quick_result("a/x", Outcome::Passed, 0.9995);
  r.status = "UNSPECIFIED";
  r.required_pcc = 0.95;
  store_->record("r", r);
  EXPECT_EQ(store_->run_results("r").at(0).guidance, (std::vector<std::string>{"ADD_CONFIG", "RAISE_PCC"}));
}

TEST_P(StoreTest, RecordingAgainReplacesTheAttempt) {
  store_->begin_run(run_info("r", "2026-11-22T01:00:00.000Z"));
  store_->record("r", quick_result("a/x", Outcome::Failed, 0.5));
  store_->record("r", quick_result("a/x", Outcome::Passed, 0.999));
  CaseResult retry = quick_result("a/x", Outcome::Passed, 0.998);
  retry.attempt = 2;
  store_->record("r", retry);
  const auto back = store_->run_results("r");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].outcome, Outcome::Passed);
  EXPECT_EQ(back[1].attempt, 2);
}

TEST_P(StoreTest, QueriesForResumeHistoryAndScheduling) {
  for (int i = 1; i <= 3; ++i) {
    const std::string id = "run-" + std::to_string(i);
    store_->begin_run(run_info(id, "2026-11-2" + std::to_string(i) + "T01:00:00.000Z"));
    std::vector<CaseResult> batch = {quick_result("a/x", Outcome::Passed, 0.99 + i * 0.001, i),
                                     quick_result("b/y", i == 3 ? Outcome::Failed : Outcome::Passed, 0.9, 2)};
    for (CaseResult& r : batch) r.started_at = "2026-11-2" + std::to_string(i) + "T01:00:01.000Z";
    store_->record_batch(id, batch);
    if (i < 3) store_->finish_run(id, "2026-11-2" + std::to_string(i) + "T02:00:00.000Z");
  }
  const auto runs = store_->recent_runs(2);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run_id, "run-3");
  EXPECT_EQ(runs[1].run_id, "run-2");
  EXPECT_EQ(store_->last_unfinished_run().value_or(""), "run-3");

  const auto history = store_->test_history("b/y", 10);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].run_id, "run-3");
  EXPECT_EQ(history[0].result.outcome, Outcome::Failed);
  EXPECT_EQ(history[2].run_id, "run-1");

  const auto costs = store_->case_history(5);
  ASSERT_EQ(costs.count("a/x"), 1u);
  EXPECT_EQ(costs.at("a/x").runs, 3);
  EXPECT_DOUBLE_EQ(costs.at("a/x").median_wall_seconds, 2.0);
  // Resuming run-3 sees only what came before it.
  const auto before_run3 = store_->case_history(5, "2026-11-23T01:00:00.000Z");
  EXPECT_EQ(before_run3.at("a/x").runs, 2);
  EXPECT_DOUBLE_EQ(before_run3.at("a/x").median_wall_seconds, 2.0);  // of {1, 2}: the upper median

  // --resume: the highest attempt of each case, with its outcome.
  CaseResult retried = quick_result("b/y", Outcome::Error, 0.9, 2);
  retried.attempt = 2;
  store_->record("run-3", retried);
  const auto last = store_->last_attempts("run-3", "n150");
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last.at("a/x").attempt, 1);
  EXPECT_EQ(last.at("a/x").outcome, Outcome::Passed);
  EXPECT_EQ(last.at("b/y").attempt, 2);
  EXPECT_EQ(last.at("b/y").outcome, Outcome::Error);
}

TEST_P(StoreTest, EightConcurrentWriterProcessesLoseNothing) {
  constexpr int kWriters = 8, kEach = 40;
  store_->begin_run(run_info("shared", "2026-11-22T01:00:00.000Z"));
  store_.reset();  // children open their own connections
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        auto store = open_store(fresh_.url);
        for (int i = 0; i < kEach; ++i) {
          CaseResult r = full_result("w" + std::to_string(w) + "/case" + std::to_string(i));
          store->record("shared", r);
        }
      } catch (const std::exception& e) {
        fprintf(stderr, "writer %d: %s\n", w, e.what());
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed";
  }
  auto store = open_store(fresh_.url);
  const auto results = store->run_results("shared");
  EXPECT_EQ(results.size(), static_cast<size_t>(kWriters * kEach));
  size_t outputs = 0;
  for (const auto& r : results) outputs += r.outputs.size();
  EXPECT_EQ(outputs, kWriters * kEach * full_result("x").outputs.size());
}

TEST_P(StoreTest, ConcurrentFirstOpensMigrateOnce) {
  std::vector<pid_t> children;
  const auto fresh = fresh_store(GetParam());  // nobody has opened this one yet
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        open_store(fresh.url);
      } catch (const std::exception& e) {
        fprintf(stderr, "opener %d: %s\n", w, e.what());
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(open_store(fresh.url)->schema_version(), latest_schema_version());
}

// The same run id on two arches: two results, the run's arch set, a selection per arch.
TEST_P(StoreTest, OneRunIdHoldsSeveralArches) {
  RunInfo run = run_info("nightly", "2026-11-22T01:00:00.000Z");
  store_->begin_run(run);
  store_->record_selection("nightly", "n150", "1/2", {"a/x", "b/y"});
  CaseResult on_n150 = full_result("a/x");
  store_->record("nightly", on_n150);
  run.arch = "p150";
  store_->begin_run(run);  // a p150 shard joins the run
  store_->record_selection("nightly", "p150", "", {"a/x"});
  CaseResult on_p150 = on_n150;
  on_p150.arch = "p150";
  on_p150.pcc = 0.5;
  store_->record("nightly", on_p150);

  const auto back = store_->run_results("nightly");
  ASSERT_EQ(back.size(), 2u) << "the p150 result replaced the n150 one";
  EXPECT_EQ(back[0].arch, "n150");
  EXPECT_EQ(back[0].outputs.size(), on_n150.outputs.size());  // each result keeps its own outputs
  EXPECT_EQ(back[1].arch, "p150");
  EXPECT_DOUBLE_EQ(back[1].pcc, 0.5);
  EXPECT_EQ(back[1].outputs.size(), on_p150.outputs.size());
  EXPECT_EQ(store_->find_run("nightly")->arch, "n150,p150");
  EXPECT_EQ(store_->last_attempts("nightly", "p150").size(), 1u);
  const auto selection = store_->run_selection("nightly");
  ASSERT_EQ(selection.size(), 3u);
  EXPECT_EQ(selection[0].arch, "n150");
  EXPECT_EQ(selection[0].shard, "1/2");
  EXPECT_EQ(selection[2].arch, "p150");
}

// A store written by schema 4 (arch not in the key, outputs without arch):
// migrating keeps every result and output, each output with its result's arch.
TEST_P(StoreTest, MigratesAVersion4StoreKeepingResultsAndOutputs) {
  const testing::FreshStore v4 = fresh_store(GetParam());
  {
    std::unique_ptr<SqlDatabase> db = testing::open_database(v4.url);
    migrate_schema(*db, 4);
    db->exec("INSERT INTO runs (run_id, arch, started_at) VALUES ('old', 'n150', '2026-01-01T00:00:00.000Z');"
             "INSERT INTO results (run_id, test_id, attempt, arch, outcome, pcc) "
             "VALUES ('old', 't', 1, 'n150', 'passed', 0.995);"
             "INSERT INTO results (run_id, test_id, attempt, outcome) VALUES ('old', 'u', 1, 'failed');"
             "INSERT INTO result_outputs (run_id, test_id, attempt, kind, output_name, position, pcc, passed) "
             "VALUES ('old', 't', 1, 'output', 'logits', 0, 0.995, 1);");
  }
  const std::unique_ptr<ResultStore> store = open_store(v4.url);
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  const auto results = store->run_results("old");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].arch, "n150");
  EXPECT_EQ(results[0].optimization_level, -1);  // not recorded before schema 5
  ASSERT_EQ(results[0].outputs.size(), 1u);
  EXPECT_EQ(results[0].outputs[0].name, "logits");
  EXPECT_EQ(results[1].arch, "");  // a v4 row without an arch keeps an empty one
  CaseResult on_p150 = results[0];
  on_p150.arch = "p150";
  store->record("old", on_p150);  // the new key holds both
  EXPECT_EQ(store->run_results("old").size(), 3u);
}

// Schema 16 puts the backend in the results' key: a v15 store's rows (and
// their outputs) become the simulated chip's, and the same case of the same
// run on another backend is a second row, in the tables and in the views.
TEST_P(StoreTest, MigratesAVersion15StoreAndKeepsEachBackendsResult) {
  const testing::FreshStore v15 = fresh_store(GetParam());
  {
    std::unique_ptr<SqlDatabase> db = testing::open_database(v15.url);
    migrate_schema(*db, 15);
    db->exec("INSERT INTO runs (run_id, arch, started_at) VALUES ('old', 'n150', '2026-01-01T00:00:00.000Z');"
             "INSERT INTO results (run_id, test_id, attempt, arch, outcome, pcc) "
             "VALUES ('old', 't', 1, 'n150', 'passed', 0.995);"
             "INSERT INTO result_outputs (run_id, test_id, attempt, arch, kind, output_name, position, pcc, passed) "
             "VALUES ('old', 't', 1, 'n150', 'output', 'logits', 0, 0.995, 1);");
  }
  const std::unique_ptr<ResultStore> store = open_store(v15.url);
  EXPECT_EQ(store->schema_version(), latest_schema_version());
  auto results = store->run_results("old");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].backend, "simulated");
  ASSERT_EQ(results[0].outputs.size(), 1u);
  CaseResult on_plugin = results[0];
  on_plugin.backend = "pjrt";
  on_plugin.pcc = 0.5;
  on_plugin.outcome = Outcome::Failed;
  on_plugin.outputs[0].pcc = 0.5;
  store->record("old", on_plugin);  // does not overwrite the simulated chip's
  results = store->run_results("old");
  ASSERT_EQ(results.size(), 2u);
  for (const CaseResult& r : results) {
    ASSERT_EQ(r.outputs.size(), 1u) << r.backend;  // each result gets its own outputs
    EXPECT_DOUBLE_EQ(r.outputs[0].pcc, r.backend == "pjrt" ? 0.5 : 0.995) << r.backend;
  }
  const std::unique_ptr<SqlDatabase> db = testing::open_database(v15.url);
  const auto summary = db->query("SELECT backend, passed, failed FROM run_summary ORDER BY backend", {});
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].text(0) + " " + summary[0].text(1) + " " + summary[0].text(2), "pjrt 0 1");
  EXPECT_EQ(summary[1].text(0) + " " + summary[1].text(1) + " " + summary[1].text(2), "simulated 1 0");
}

// The views for dashboards on the store (docs/results-schema.md "Views"):
// final attempts only, a pass on retry counted as flaky, an xfail apart from
// the failures, a selected case without a result counted missing.
TEST_P(StoreTest, ViewsSummariseRunsForDashboards) {
  store_->begin_run(run_info("nightly", "2026-11-22T01:00:00.000Z"));
  store_->record_selection("nightly", "n150", "", {"a/x", "b/y", "c/z", "d/w", "lost/case"});
  CaseResult first = quick_result("a/x", Outcome::Failed, 0.5);
  CaseResult retry = quick_result("a/x", Outcome::Passed, 0.995);
  retry.attempt = 2;
  CaseResult xfail = quick_result("c/z", Outcome::Xfailed, 0.3);
  xfail.status = "KNOWN_FAILURE_XFAIL";
  store_->record_batch("nightly", {first, retry, quick_result("b/y", Outcome::Failed, 0.9), xfail,
                                   quick_result("d/w", Outcome::Passed, 0.999)});
  const std::unique_ptr<SqlDatabase> db = testing::open_database(fresh_.url);
  const auto summary = db->query(
      "SELECT run_id, arch, results, passed, failed, xfailed, flaky, missing FROM run_summary", {});
  ASSERT_EQ(summary.size(), 1u);
  std::vector<std::string> cells;
  for (size_t i = 0; i < summary[0].size(); ++i) cells.push_back(summary[0].text(i));
  EXPECT_EQ(cells, (std::vector<std::string>{"nightly", "n150", "4", "2", "1", "1", "1", "1"}));
  const auto history = db->query(
      "SELECT test_id, outcome, attempt, run_started_at FROM case_history WHERE test_id = 'a/x'", {});
  ASSERT_EQ(history.size(), 1u) << "one row per case: its final attempt";
  EXPECT_EQ(history[0].text(1), "passed");
  EXPECT_EQ(history[0].text(2), "2");
  EXPECT_EQ(history[0].text(3), "2026-11-22T01:00:00.000Z");
  const auto missing = db->query("SELECT test_id FROM missing_cases", {});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].text(0), "lost/case");
  EXPECT_EQ(db->query("SELECT test_id FROM final_results", {}).size(), 4u);
}

// run --budget: a selected case the run chose not to start stays missing,
// with its reason, in run_selection and the missing_cases view; the history
// it plans with is one arch's and backend's (a result without a backend counts for any).
TEST_P(StoreTest, CasesNotStartedForTheBudgetAreMissingWithTheReason) {
  store_->begin_run(run_info("cut", "2026-11-22T01:00:00.000Z"));
  store_->record_selection("cut", "n150", "", {"a/x", "b/y", "c/z"});
  store_->record("cut", quick_result("a/x", Outcome::Passed, 0.999, 4.0));
  store_->mark_not_run("cut", "n150", {"b/y", "c/z"}, "budget");
  for (const SelectedCase& c : store_->run_selection("cut")) {
    EXPECT_EQ(c.not_run_reason, c.test_id == "a/x" ? "" : "budget") << c.test_id;
  }
  const std::unique_ptr<SqlDatabase> db = testing::open_database(fresh_.url);
  const auto missing = db->query("SELECT test_id, not_run_reason FROM missing_cases ORDER BY test_id", {});
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].text(0) + ":" + missing[0].text(1), "b/y:budget");
  EXPECT_EQ(missing[1].text(0) + ":" + missing[1].text(1), "c/z:budget");

  CaseResult on_p150 = quick_result("b/y", Outcome::Passed, 0.999, 9.0);
  on_p150.arch = "p150";
  CaseResult on_plugin = quick_result("c/z", Outcome::Passed, 0.999, 7.0);
  on_plugin.backend = "pjrt";
  store_->record_batch("cut", {on_p150, on_plugin});
  const auto simulated_n150 = store_->case_history(5, "", {"n150", "simulated"});
  EXPECT_EQ(simulated_n150.count("a/x"), 1u) << "a result without a backend counts for every backend";
  EXPECT_EQ(simulated_n150.count("b/y"), 0u) << "p150's";
  EXPECT_EQ(simulated_n150.count("c/z"), 0u) << "pjrt's";
  EXPECT_EQ(store_->case_history(5, "", {"n150", "pjrt"}).count("c/z"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace meshtest::reports
