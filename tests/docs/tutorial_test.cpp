// Runs the tutorial's runnable command blocks (docs/tutorials/bring-up-a-model.md, fenced
// ```sh runnable) against the build, in order, in one bash session, and checks each block's
// exit status and its `# expect: REGEX` lines; the convention is written at the top of the page.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/run_command.h"
#include "tests/docs/markdown.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::fresh_test_dir;
using meshtest::testing::read_text_file;
using meshtest::testing::run_command;

const char* const kTutorial = MESHTEST_SOURCE_DIR "/docs/tutorials/bring-up-a-model.md";

struct RunnableBlock {
  int line = 0;  // of the opening fence
  std::string body;
  std::vector<std::string> expects;     // `# expect: REGEX`
  std::optional<std::string> requires_;  // `# requires: COMMAND`
};

enum class BlockState { Passed, Failed, Skipped, NotReached };

std::ostream& operator<<(std::ostream& out, BlockState s) {
  constexpr const char* kNames[] = {"passed", "failed", "skipped", "not reached"};
  return out << kNames[static_cast<int>(s)];
}

struct BlockOutcome {
  int line = 0;
  BlockState state = BlockState::NotReached;
  std::string output;
  std::string why;  // for Failed and Skipped
};

std::vector<RunnableBlock> runnable_blocks(std::string_view markdown) {
  static const std::regex expect(R"(^[ \t]*# expect: (.*?)[ \t]*$)");
  static const std::regex needs(R"(^[ \t]*# requires: (.*?)[ \t]*$)");
  std::vector<RunnableBlock> out;
  for (const auto& fenced : meshtest::docs::fenced_blocks(markdown)) {
    if (fenced.info != "sh runnable") continue;
    RunnableBlock block{fenced.line, fenced.body, {}, std::nullopt};
    std::istringstream lines(fenced.body);
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
      if (std::regex_match(line, m, expect)) block.expects.push_back(m[1].str());
      else if (std::regex_match(line, m, needs)) block.requires_ = m[1].str();
    }
    out.push_back(std::move(block));
  }
  return out;
}

std::string marker(size_t index, const char* what) {
  return "@@tutorial-block " + std::to_string(index) + " " + what + "@@";
}

// One bash script: every block between begin/end markers, a block with a requirement inside
// an `if` that prints a skip marker when the requirement fails.
std::string session_script(const std::vector<RunnableBlock>& blocks) {
  std::string script = "set -e -o pipefail\n";
  for (size_t i = 0; i < blocks.size(); ++i) {
    script += "echo '" + marker(i, "begin") + "'\n";
    if (blocks[i].requires_) {
      script += "if ! { " + *blocks[i].requires_ + " ; } >/dev/null 2>&1; then echo '" + marker(i, "skipped") +
                "'; else\n" + blocks[i].body + "fi\n";
    } else {
      script += blocks[i].body;
    }
    script += "echo '" + marker(i, "end") + "'\n";
  }
  return script;
}

bool some_line_matches(const std::string& output, const std::string& pattern) {
  const std::regex re(pattern, std::regex::ECMAScript);
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, re)) return true;
  return false;
}

// Runs the blocks in `work` (an empty folder) with `environment` (assignments for env(1)).
std::vector<BlockOutcome> run_blocks(const std::vector<RunnableBlock>& blocks, const fs::path& work,
                                     const std::string& environment) {
  const fs::path script = work.parent_path() / (work.filename().string() + ".sh");
  std::ofstream(script) << session_script(blocks);
  const auto session = run_command("cd '" + work.string() + "' && env " + environment + " bash '" +
                                   script.string() + "' </dev/null");
  const std::string& all = session.output;
  std::vector<BlockOutcome> out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    BlockOutcome o{blocks[i].line, BlockState::NotReached, "", ""};
    const std::string begin = marker(i, "begin") + "\n";
    const size_t from = all.find(begin);
    if (from != std::string::npos) {
      const size_t start = from + begin.size();
      const size_t stop = all.find(marker(i, "end"), start);
      o.output = all.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
      if (stop == std::string::npos) {
        o.state = BlockState::Failed;
        o.why = "the session stopped in this block (bash exit status " + std::to_string(session.status) + ")";
      } else if (o.output.find(marker(i, "skipped")) != std::string::npos) {
        o.state = BlockState::Skipped;
        o.why = "requirement not met: " + blocks[i].requires_.value_or("");
      } else {
        o.state = BlockState::Passed;
        for (const auto& pattern : blocks[i].expects)
          if (!some_line_matches(o.output, pattern)) {
            o.state = BlockState::Failed;
            o.why += "no output line matches `# expect: " + pattern + "`\n";
          }
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::string describe(const BlockOutcome& o) {
  return "block at line " + std::to_string(o.line) + ": " + o.why + "\n--- its output ---\n" + o.output;
}

// An installed SDK for the C++ loader block: <build>/sdk when scripts/test made it, else one
// installed into `scratch` now; "" when neither can be had (that block is then skipped).
std::string sdk_prefix(const fs::path& scratch) {
  const fs::path made = fs::path(MESHTEST_BINARY_DIR) / "sdk";
  if (fs::exists(made / "lib/cmake/meshtest/meshtest-config.cmake")) return made.string();
  const fs::path mine = scratch / "sdk";
  const auto install =
      run_command("cmake --install '" + std::string(MESHTEST_BINARY_DIR) + "' --prefix '" + mine.string() + "'");
  if (install.status == 0) return mine.string();
  std::cout << "[ note ] no installed SDK (cmake --install failed): the C++ loader block will be skipped\n"
            << install.output << "\n";
  return "";
}

std::string tutorial_environment(const fs::path& scratch) {
  const std::string build = fs::path(MESHTEST_BINARY).parent_path().string();
  const char* path = std::getenv("PATH");
  // /usr/bin next: the system Python, where scripts/setup installs python3-onnx.
  return "-u MESHTEST_MUTANT -u MESHTEST_MODELS_PATH -u MESHTEST_CONFIG_DIR PATH='" + build + ":/usr/bin:" +
         (path ? path : "") + "' MESHTEST_SDK_PREFIX='" + sdk_prefix(scratch) + "'";
}

TEST(Tutorial, HasRunnableBlocksEachWithAnExpectLine) {
  const auto blocks = runnable_blocks(read_text_file(kTutorial));
  ASSERT_GE(blocks.size(), 5u) << kTutorial;
  for (const auto& b : blocks) EXPECT_FALSE(b.expects.empty()) << "block at line " << b.line << " has no `# expect:`";
}

TEST(Tutorial, RunnableBlocksRunAgainstTheBuildAndShowWhatTheySay) {
  const auto blocks = runnable_blocks(read_text_file(kTutorial));
  const fs::path scratch = fresh_test_dir("meshtest_tutorial_", "session");
  const fs::path work = scratch / "tutorial";
  fs::create_directories(work);
  const auto outcomes = run_blocks(blocks, work, tutorial_environment(scratch));
  size_t passed = 0;
  for (const auto& o : outcomes) {
    if (o.state == BlockState::Skipped) {
      std::cout << "[ skipped ] tutorial block at line " << o.line << ": " << o.why << "\n";
      continue;
    }
    if (o.state == BlockState::NotReached) {
      ADD_FAILURE() << "block at line " << o.line << " not reached: an earlier block failed";
      continue;
    }
    EXPECT_EQ(o.state, BlockState::Passed) << describe(o);
    passed += o.state == BlockState::Passed;
  }
  std::cout << "[ tutorial ] " << passed << " of " << outcomes.size() << " runnable blocks passed\n";
  fs::remove_all(scratch);
}

// The harness itself: a failing command, a wrong expectation and a missing requirement are seen.
class TutorialHarness : public ::testing::Test {
 protected:
  std::vector<BlockOutcome> run(const std::string& markdown) {
    scratch_ = fresh_test_dir("meshtest_tutorial_", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(scratch_ / "w");
    return run_blocks(runnable_blocks(markdown), scratch_ / "w", "LC_ALL=C");
  }
  void TearDown() override { fs::remove_all(scratch_); }
  fs::path scratch_;
};

TEST_F(TutorialHarness, ExportsAndFilesCarryOverAndOnlyRunnableBlocksRun) {
  const auto o = run(
      "```sh runnable\nexport GREETING=hello\necho data > f\necho set\n# expect: ^set$\n```\n"
      "```sh\necho not run > f\n```\n"
      "```sh runnable\necho \"$GREETING $(cat f)\"\n# expect: ^hello data$\n```\n");
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].state, BlockState::Passed) << describe(o[0]);
  EXPECT_EQ(o[1].state, BlockState::Passed) << describe(o[1]);
}

TEST_F(TutorialHarness, AFailingCommandFailsItsBlockAndStopsTheSession) {
  const auto o = run(
      "```sh runnable\necho one\n# expect: ^one$\n```\n"
      "```sh runnable\nfalse\necho after\n# expect: after\n```\n"
      "```sh runnable\necho three\n# expect: three\n```\n");
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0].state, BlockState::Passed);
  EXPECT_EQ(o[1].state, BlockState::Failed);
  EXPECT_NE(o[1].why.find("stopped in this block"), std::string::npos) << o[1].why;
  EXPECT_EQ(o[2].state, BlockState::NotReached);
}

TEST_F(TutorialHarness, AnExpectLineNoOutputLineMatchesFailsTheBlock) {
  const auto o = run("```sh runnable\necho 'PASSED pcc=0.5'\n# expect: ^FAILED\n```\n");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].state, BlockState::Failed);
  EXPECT_NE(o[0].why.find("# expect: ^FAILED"), std::string::npos) << o[0].why;
}

TEST_F(TutorialHarness, AnExpectedFailureIsWrittenWithItsExitStatus) {
  const auto o = run("```sh runnable\nsh -c 'exit 3' || echo \"exit status $?\"\n# expect: ^exit status 3$\n```\n");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].state, BlockState::Passed) << describe(o[0]);
}

TEST_F(TutorialHarness, ABlockWhoseRequirementFailsIsSkippedAndTheSessionGoesOn) {
  const auto o = run(
      "```sh runnable\n# requires: test -e /no/such/file\necho never\n# expect: never\n```\n"
      "```sh runnable\necho later\n# expect: ^later$\n```\n");
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].state, BlockState::Skipped);
  EXPECT_EQ(o[0].output.find("never"), std::string::npos) << o[0].output;
  EXPECT_EQ(o[1].state, BlockState::Passed) << describe(o[1]);
}

}  // namespace
