// The shipped CI workflows: each .github/workflows file is valid YAML with
// jobs, has the steps its schedule needs, and every meshtest command line in
// it (scripts/run with the arguments scripts/run adds) parses against the
// real CLI (`meshtest --check-args`). The checker itself rejects a bad line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "tests/ci/shipped_selections.h"
#include "tests/ci/workflow_commands.h"
#include "tests/common/run_command.h"

namespace meshtest::ci {
namespace {

using testing::shell_quote;

namespace fs = std::filesystem;

const fs::path kSource = MESHTEST_SOURCE_DIR;

// `meshtest --check-args ARGS`: exit status and output.
testing::CommandResult check_args(const std::vector<std::string>& args) {
  std::string command = std::string(MESHTEST_BINARY) + " --check-args";
  for (const auto& a : args) command += " " + shell_quote(a);
  return testing::run_command(command);
}

ScriptsRun scripts_run() { return read_scripts_run(testing::read_text_file((kSource / "scripts/run").string())); }

std::map<std::string, YAML::Node> workflows() {
  std::map<std::string, YAML::Node> out;
  for (const auto& e : fs::directory_iterator(kSource / ".github/workflows")) {
    if (e.path().extension() == ".yml" || e.path().extension() == ".yaml") {
      out[e.path().filename().string()] = YAML::LoadFile(e.path().string());
    }
  }
  return out;
}

std::set<std::string> subcommands(const std::vector<MeshtestInvocation>& calls) {
  std::set<std::string> out;
  for (const auto& c : calls) {
    if (!c.args.empty()) out.insert(c.args[0]);
  }
  return out;
}

TEST(Workflows, ScriptsRunIsReadFromTheScript) {
  const ScriptsRun s = scripts_run();
  ASSERT_GE(s.prefix.size(), 3u);
  EXPECT_EQ(s.prefix[0], "run");
  EXPECT_EQ(s.prefix[1], "--junitxml");
  EXPECT_FALSE(s.default_selection.empty());
}

TEST(Workflows, EachIsValidYamlWithJobsAndATrigger) {
  const auto files = workflows();
  for (const char* name : {"pr.yml", "nightly.yml", "weekly.yml", "training.yml"}) {
    EXPECT_TRUE(files.count(name)) << name << " is not shipped";
  }
  for (const auto& [name, doc] : files) {
    EXPECT_TRUE(doc["on"]) << name << ": no trigger";
    ASSERT_TRUE(doc["jobs"] && doc["jobs"].IsMap() && doc["jobs"].size() > 0) << name << ": no jobs";
    for (const auto& job : doc["jobs"]) {
      EXPECT_TRUE(job.second["runs-on"]) << name << ": job " << job.first << " has no runs-on";
      EXPECT_TRUE(job.second["steps"] && job.second["steps"].IsSequence()) << name << ": job " << job.first;
    }
  }
}

TEST(Workflows, EveryMeshtestInvocationParses) {
  size_t checked = 0;
  for (const auto& [name, doc] : workflows()) {
    const auto calls = meshtest_invocations(doc, scripts_run());
    EXPECT_FALSE(calls.empty()) << name << " runs no meshtest command";
    for (const auto& call : calls) {
      const auto r = check_args(call.args);
      EXPECT_EQ(r.status, 0) << name << ", job " << call.job << ": `" << call.line << "`\n" << r.output;
      ++checked;
    }
  }
  EXPECT_GE(checked, 10u);
}

TEST(Workflows, EachScheduleHasItsSteps) {
  const auto files = workflows();
  const auto pr = meshtest_invocations(files.at("pr.yml"), scripts_run());
  EXPECT_EQ(subcommands(pr), (std::set<std::string>{"validate-config", "run", "changed"}));
  // The PR gate runs the cases whose expectations or loaders the PR changed.
  EXPECT_TRUE(std::any_of(pr.begin(), pr.end(), [](const MeshtestInvocation& call) {
    return call.args.size() > 1 && call.args[0] == "run" &&
           std::find(call.args.begin(), call.args.end(), "--changed") != call.args.end();
  }));
  const auto nightly = meshtest_invocations(files.at("nightly.yml"), scripts_run());
  EXPECT_TRUE(subcommands(nightly).count("merge"));
  // The merge job builds meshtest before merging.
  bool builds = false;
  for (const auto& step : files.at("nightly.yml")["jobs"]["merge"]["steps"]) {
    builds = builds || (step["run"] && step["run"].as<std::string>().find("cmake --build") != std::string::npos);
  }
  EXPECT_TRUE(builds);
  const auto matrix = files.at("nightly.yml")["jobs"]["shard"]["strategy"]["matrix"];
  EXPECT_GE(matrix["arch"].size(), 2u);
  EXPECT_GE(matrix["shard"].size(), 2u);
}

// The README's old nightly step: scripts/run already passes --junitxml.
const char* kBadWorkflow = R"(
on: {schedule: [{cron: "0 1 * * *"}]}
jobs:
  shard:
    strategy: {matrix: {shard: [1, 2]}}
    runs-on: ubuntu-latest
    steps:
      - run: scripts/run -m nightly --shard ${{ matrix.shard }}/2 --junitxml junit-${{ matrix.shard }}.xml
      - run: |
          build/meshtest merge \
            nightly.db   # one store only: merge needs inputs
)";

TEST(Workflows, TheCheckerRejectsWhatTheCliRejects) {
  const auto calls = meshtest_invocations(YAML::Load(kBadWorkflow), scripts_run());
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].line, "scripts/run -m nightly --shard 1/2 --junitxml junit-1.xml");
  const auto twice = check_args(calls[0].args);
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.output.find("--junitxml"), std::string::npos) << twice.output;
  const auto no_inputs = check_args(calls[1].args);
  EXPECT_EQ(no_inputs.status, 2);
  EXPECT_NE(no_inputs.output.find("inputs"), std::string::npos) << no_inputs.output;
}

TEST(Workflows, CheckArgsParsesWithoutRunning) {
  const fs::path db = fs::temp_directory_path() / ("meshtest_check_args_" + std::to_string(getpid()) + ".db");
  const auto ok = check_args({"run", "-m", "nightly", "--db", db.string()});
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_FALSE(fs::exists(db)) << "nothing ran";
  const auto env = testing::run_command("MESHTEST_PARSE_ONLY=1 " + std::string(MESHTEST_BINARY) + " run --bogus");
  EXPECT_EQ(env.status, 2);
  EXPECT_NE(env.output.find("--bogus"), std::string::npos) << env.output;
}

const char* kMatrixWorkflow = R"(
on: {schedule: [{cron: "0 1 * * *"}]}
jobs:
  shard:
    strategy: {matrix: {arch: [n150, n300], shard: [1, 2]}}
    runs-on: ubuntu-latest
    steps:
      - run: >-
          build/meshtest run --arch ${{ matrix.arch }} -m "nightly and ${{ matrix.arch }}" --shard ${{ matrix.shard }}/2
          --run-id n-${{ github.run_id }}-${{ matrix.arch }} --db shard.db --junitxml=j.xml
  one:
    runs-on: ubuntu-latest
    steps:
      - run: build/meshtest run -k resnet --optimizer-step sgd:0.01 --reruns 1
)";

TEST(Workflows, EveryMatrixCombinationIsAnInvocation) {
  const YAML::Node doc = YAML::Load(kMatrixWorkflow);
  EXPECT_EQ(meshtest_invocations(doc, scripts_run()).size(), 2u);  // first values only
  const auto every = meshtest_invocations(doc, scripts_run(), MatrixExpansion::Every);
  ASSERT_EQ(every.size(), 5u);
  EXPECT_EQ(every[0].matrix, "arch=n150 shard=1");
  EXPECT_EQ(every[3].matrix, "arch=n300 shard=2");
  EXPECT_EQ(every[3].args[2], "n300");
  EXPECT_EQ(every[3].args[4], "nightly and n300");
  EXPECT_EQ(every[4].matrix, "");
}

// The shards of one arch are one selection; outputs and the shard go, -k is
// narrowed, every other option stays.
TEST(ShippedSelections, RestrictedToQuickCasesAndMerged) {
  const auto calls = meshtest_invocations(YAML::Load(kMatrixWorkflow), scripts_run(), MatrixExpansion::Every);
  const auto selections = shipped_selections({{"w.yml", calls}}, "tiny");
  ASSERT_EQ(selections.size(), 3u);
  EXPECT_EQ(selections[0].args,
            (std::vector<std::string>{"run", "--arch", "n150", "-m", "nightly and n150", "-k", "tiny"}));
  EXPECT_EQ(selections[0].sources,
            (std::vector<std::string>{"w.yml shard arch=n150 shard=1", "w.yml shard arch=n150 shard=2"}));
  EXPECT_EQ(selections[2].args, (std::vector<std::string>{"run", "--optimizer-step", "sgd:0.01", "--reruns", "1", "-k",
                                                          "(resnet) and (tiny)"}));
  EXPECT_EQ(selections[2].sources, (std::vector<std::string>{"w.yml one"}));
}

TEST(ShellCommands, QuotesContinuationsOperatorsAndComments) {
  const auto cmds = shell_commands("A=1 build/meshtest run -m \"a and b\" \\\n  --db 'x y.db' && echo done # c\nls;pwd");
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[0], (std::vector<std::string>{"A=1", "build/meshtest", "run", "-m", "a and b", "--db", "x y.db"}));
  EXPECT_EQ(cmds[1], (std::vector<std::string>{"echo", "done"}));
  EXPECT_EQ(cmds[3], (std::vector<std::string>{"pwd"}));
}

}  // namespace
}  // namespace meshtest::ci
