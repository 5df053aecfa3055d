// The shipped selections stay green: every `meshtest run` of the shipped
// workflows (pr, nightly, weekly, training), on every arch and matrix value
// the workflow names, restricted to the quick cases (kQuickCases), runs with
// the built meshtest and the repository's test_config and must exit 0 — so
// a stale expectation (an xfail that now passes: XPASS, exit 1) or a broken
// case in a shipped selection fails here, not in the scheduled workflow.
// Results go to a temp folder. Label: ci_shipped_selections_test.
#include "tests/ci/shipped_selections.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/common/run_command.h"

namespace meshtest::ci {
namespace {

using testing::shell_quote;

namespace fs = std::filesystem;

const fs::path kSource = MESHTEST_SOURCE_DIR;
const char* const kShippedWorkflows[] = {"pr.yml", "nightly.yml", "weekly.yml", "training.yml"};
// Selections run side by side (each meshtest runs its cases on every core):
// most selections hold a few cases, so one meshtest's start and its last
// case overlap the other's.
constexpr size_t kSelectionsAtOnce = 2;

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

std::vector<WorkflowInvocations> shipped_workflows() {
  const ScriptsRun scripts = read_scripts_run(testing::read_text_file((kSource / "scripts/run").string()));
  std::vector<WorkflowInvocations> out;
  for (const char* file : kShippedWorkflows) {
    const YAML::Node doc = YAML::LoadFile((kSource / ".github/workflows" / file).string());
    out.push_back({file, meshtest_invocations(doc, scripts, MatrixExpansion::Every)});
  }
  return out;
}

struct SelectionRun {
  std::string command;
  testing::CommandResult result;
  double seconds = 0;
  std::map<std::string, std::string> outcomes;  // test id -> outcome of its last attempt (--json lines)
};

std::map<std::string, std::string> outcomes_of(const std::string& json_lines) {
  static const std::regex id(R"re("test_id"\s*:\s*"([^"]*)")re");
  static const std::regex outcome(R"re("outcome"\s*:\s*"([^"]*)")re");
  std::map<std::string, std::string> out;
  std::istringstream in(json_lines);
  for (std::string line; std::getline(in, line);) {
    std::smatch i, o;
    if (std::regex_search(line, i, id) && std::regex_search(line, o, outcome)) out[i[1]] = o[1];
  }
  return out;
}

// Runs every selection, kSelectionsAtOnce at a time; results in `dir`.
std::vector<SelectionRun> run_all(const std::vector<ShippedSelection>& selections, const fs::path& dir) {
  std::vector<SelectionRun> runs(selections.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < selections.size(); i = next++) {
      const fs::path json = dir / ("selection-" + std::to_string(i) + ".jsonl");
      std::string command = MESHTEST_BINARY;
      for (const auto& a : selections[i].args) command += " " + shell_quote(a);
      command += " --db " + shell_quote((dir / ("selection-" + std::to_string(i) + ".db")).string()) + " --json " +
                 shell_quote(json.string()) + " --cache-dir " + shell_quote((dir / "cache").string());
      runs[i].command = command;
      const auto start = std::chrono::steady_clock::now();
      runs[i].result = testing::run_command(command);
      runs[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      runs[i].outcomes = outcomes_of(testing::read_text_file(json.string()));
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kSelectionsAtOnce; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return runs;
}

TEST(ShippedSelections, EachWorkflowSelectionPassesOnItsQuickCases) {
  const auto selections = shipped_selections(shipped_workflows(), kQuickCases);
  const fs::path dir = fs::temp_directory_path() / ("meshtest_shipped_selections_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SelectionRun> runs = run_all(selections, dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::set<std::string> workflows_with_cases;
  size_t cases = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string from = joined(selections[i].sources, "\n  ");
    EXPECT_EQ(runs[i].result.status, 0) << "the quick cases of\n  " << from << "\ndo not exit 0:\n"
                                        << runs[i].command << "\n"
                                        << runs[i].result.output;
    std::cout << "[selection " << i << "] " << runs[i].outcomes.size() << " case(s), exit " << runs[i].result.status
              << ", " << runs[i].seconds << " s: " << joined(selections[i].args, " ") << "\n  " << from << "\n";
    cases += runs[i].outcomes.size();
    if (runs[i].outcomes.empty()) continue;
    for (const auto& source : selections[i].sources) workflows_with_cases.insert(source.substr(0, source.find(' ')));
  }
  std::cout << runs.size() << " selection(s), " << cases << " case(s) in " << seconds << " s\n";
  // Every shipped workflow has quick cases in its selections: the test checks something of each.
  for (const char* file : kShippedWorkflows) EXPECT_TRUE(workflows_with_cases.count(file)) << file << " ran no case";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace meshtest::ci
