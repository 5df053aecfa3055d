// The coverage gate over the shipped selections (compile-only, so cheap
// enough for every change): every `meshtest run` of the shipped PR and
// nightly workflows (scripts/run's selection included, every matrix value),
// without its output options, is compiled with `run --compile-only --json`,
// and `meshtest coverage --results` over them must pass: the nightly, and
// the PR's two selections (scripts/run's on n150 and the tiny mesh cases on
// n300-llmbox), each reach every device path (kernel variants, collectives,
// compiler passes) or declare why none can. Label: coverage_gate_test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "tests/ci/shipped_selections.h"
#include "tests/common/run_command.h"

namespace meshtest::ci {
namespace {

using testing::shell_quote;

namespace fs = std::filesystem;

const fs::path kSource = MESHTEST_SOURCE_DIR;

// The workflow's `run` selections, output options dropped, duplicates (a
// nightly's shards) merged; a `run --changed REF` selects by the PR's diff,
// not by the workflow, and is left out.
std::vector<std::vector<std::string>> selections_of(const char* workflow) {
  const ScriptsRun scripts = read_scripts_run(testing::read_text_file((kSource / "scripts/run").string()));
  const YAML::Node doc = YAML::LoadFile((kSource / ".github/workflows" / workflow).string());
  std::vector<std::vector<std::string>> out;
  for (const MeshtestInvocation& call : meshtest_invocations(doc, scripts, MatrixExpansion::Every)) {
    if (call.args.empty() || call.args[0] != "run") continue;
    if (std::find(call.args.begin(), call.args.end(), "--changed") != call.args.end()) continue;
    std::vector<std::string> args = without_output_options(call.args);
    if (std::find(out.begin(), out.end(), args) == out.end()) out.push_back(std::move(args));
  }
  return out;
}

class CoverageGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("meshtest_coverage_gate_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Compiles each selection into a JSON lines file; returns coverage's --results options.
  std::string compile_all(const std::string& name, const std::vector<std::vector<std::string>>& selections) {
    std::string results;
    for (size_t i = 0; i < selections.size(); ++i) {
      const fs::path json = dir_ / (name + "-" + std::to_string(i) + ".jsonl");
      std::string command = MESHTEST_BINARY;
      for (const std::string& a : selections[i]) command += " " + shell_quote(a);
      command += " --compile-only -q --db '' --json " + shell_quote(json.string()) + " --cache-dir " +
                 shell_quote((dir_ / "cache").string());
      const testing::CommandResult r = testing::run_command(command);
      EXPECT_EQ(r.status, 0) << command << "\n" << r.output;
      results += " --results " + shell_quote(json.string());
    }
    return results;
  }

  // `meshtest coverage` over `results`; its unreached paths and verdict are printed.
  testing::CommandResult coverage(const std::string& results, const std::string& require) {
    testing::CommandResult r =
        testing::run_command(std::string(MESHTEST_BINARY) + " coverage" + results + " --require " + require);
    const size_t unreached = r.output.find("UNREACHED");
    std::cout << (unreached == std::string::npos ? r.output : r.output.substr(unreached)) << "\n";
    return r;
  }

  fs::path dir_;
};

TEST_F(CoverageGate, TheNightlyReachesEveryDevicePathOrSaysWhyNot) {
  const auto selections = selections_of("nightly.yml");
  ASSERT_FALSE(selections.empty());
  const testing::CommandResult r = coverage(compile_all("nightly", selections), "all");
  EXPECT_EQ(r.status, 0) << r.output;
}

// The PR's mesh selection makes the mesh paths (collectives, sharded
// embedding, the shard pass) part of the same requirement.
TEST_F(CoverageGate, ThePrSelectionsReachEveryPathTheNightlyMust) {
  const auto selections = selections_of("pr.yml");
  ASSERT_GE(selections.size(), 2u) << "scripts/run's selection and the mesh selection";
  const testing::CommandResult r = coverage(compile_all("pr", selections), "all");
  EXPECT_EQ(r.status, 0) << r.output;
}

// The command itself on one case: what it reaches is listed, the rest fails the gate.
TEST_F(CoverageGate, OneCaseReachesItsPathsAndTheRestFailsTheGate) {
  const testing::CommandResult r = testing::run_command(
      std::string(MESHTEST_BINARY) + " coverage mnist/image_classification/native-mlp-single_device-inference" +
      " --cache-dir " + shell_quote((dir_ / "cache").string()));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("\n  linear: 1 case(s), e.g. mnist/image_classification/native-mlp-single_device-inference "
                          "@n150\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\n  sdpa: reached by no case"), std::string::npos) << r.output;
}

TEST_F(CoverageGate, ResultsAndASelectionAreExclusive) {
  const testing::CommandResult r =
      testing::run_command(std::string(MESHTEST_BINARY) + " coverage -k mnist --results /nonexistent.jsonl");
  EXPECT_EQ(r.status, 2) << r.output;
  const testing::CommandResult missing =
      testing::run_command(std::string(MESHTEST_BINARY) + " coverage --results /nonexistent.jsonl");
  EXPECT_EQ(missing.status, 2) << missing.output;
}

}  // namespace
}  // namespace meshtest::ci
