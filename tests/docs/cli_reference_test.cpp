// docs/reference/cli.md is the binary's own help: the page equals what
// `meshtest --help-markdown` prints, each of its sections is what that
// command's `--help` prints, and every subcommand's help names its
// positional arguments and gives an example that parses, with no CLI11 flag notation
// (--perf{5}) left in it.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"

namespace {

using meshtest::testing::CommandResult;
using meshtest::testing::run_meshtest;

const std::string kPage = std::string(MESHTEST_SOURCE_DIR) + "/docs/reference/cli.md";
const std::string kRegenerate = "build/meshtest --help-markdown > docs/reference/cli.md";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "line N: page has '...', the binary prints '...'" for the first line that differs.
std::string first_difference(const std::string& page, const std::string& printed) {
  const std::vector<std::string> a = lines(page), b = lines(printed);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string left = i < a.size() ? a[i] : "<end of page>";
    const std::string right = i < b.size() ? b[i] : "<end of output>";
    if (left != right) {
      return "line " + std::to_string(i + 1) + ": the page has\n  " + left + "\nthe binary prints\n  " + right;
    }
  }
  return "they differ in the last newline";
}

// The subcommands the page lists: "- [`meshtest run`](#meshtest-run)" gives "run".
std::vector<std::string> listed_subcommands(const std::string& page) {
  std::vector<std::string> out;
  const std::regex item(R"(^- \[`meshtest ([a-z-]+)`\])");
  for (const std::string& line : lines(page)) {
    std::smatch m;
    if (std::regex_search(line, m, item)) out.push_back(m[1]);
  }
  return out;
}

// The fenced block under "## `meshtest <sub>`".
std::string section(const std::string& page, const std::string& sub) {
  const std::string heading = "## `meshtest " + sub + "`\n\n```text\n";
  const size_t start = page.find(heading);
  if (start == std::string::npos) return "";
  const size_t body = start + heading.size();
  return page.substr(body, page.find("```\n", body) - body);
}

class CliReference : public ::testing::Test {
 protected:
  void SetUp() override {
    printed_ = run_meshtest("--help-markdown");
    page_ = meshtest::testing::read_text_file(kPage);
  }
  CommandResult printed_;
  std::string page_;
};

TEST_F(CliReference, PageIsWhatTheBinaryPrints) {
  ASSERT_EQ(printed_.status, 0) << printed_.output;
  ASSERT_FALSE(page_.empty()) << kPage << " is missing; generate it: " << kRegenerate;
  EXPECT_TRUE(page_ == printed_.output) << kPage << " differs from `meshtest --help-markdown`; regenerate it:\n  "
                                        << kRegenerate << "\n"
                                        << first_difference(page_, printed_.output);
}

TEST_F(CliReference, EachSectionIsThatCommandsHelp) {
  const std::vector<std::string> subs = listed_subcommands(printed_.output);
  ASSERT_GE(subs.size(), 15u) << printed_.output;
  for (const std::string& sub : subs) {
    const CommandResult help = run_meshtest(sub + " --help");
    ASSERT_EQ(help.status, 0) << sub << ": " << help.output;
    EXPECT_EQ(section(printed_.output, sub), help.output) << "meshtest " << sub << " --help";
  }
}

TEST_F(CliReference, EverySubcommandNamesItsPositionalsAndGivesAnExample) {
  for (const std::string& sub : listed_subcommands(printed_.output)) {
    const std::string help = section(printed_.output, sub);
    const bool positionals = help.find("\nPositionals:\n") != std::string::npos ||
                             help.find("\nPositional arguments: ") != std::string::npos;
    EXPECT_TRUE(positionals) << "meshtest " << sub << " --help does not say what it takes as positionals:\n" << help;
    const size_t example = help.find("\nExample:\n  meshtest " + sub + " ");
    ASSERT_NE(example, std::string::npos)
        << "meshtest " << sub << " --help has no example (runner/cli/help_text.cpp):\n"
        << help;
    const size_t args = example + std::string("\nExample:\n  meshtest ").size();
    const std::string command = help.substr(args, help.find('\n', args) - args);
    const CommandResult parsed = run_meshtest(command, "MESHTEST_PARSE_ONLY=1");
    EXPECT_EQ(parsed.status, 0) << "the example of meshtest " << sub << " does not parse: " << parsed.output;
  }
}

TEST_F(CliReference, NoFlagShowsCli11sDefaultNotation) {
  std::smatch m;
  EXPECT_FALSE(std::regex_search(printed_.output, m, std::regex(R"(--[a-z-]+\{[^}]*\})"))) << m.str(0);
  EXPECT_NE(printed_.output.find("  --perf[=N] "), std::string::npos);
  EXPECT_NE(printed_.output.find("  --no-strict-xfail "), std::string::npos);
}

}  // namespace
