// The command-line habits as a mechanism (runner/cli/cli_habits.h): they
// reach a subcommand registered after add_console_habits, a misspelt
// subcommand or option of any subcommand gets its "did you mean", and a
// repeatable option takes one value per occurrence.
#include "runner/cli/cli_habits.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace meshtest::runner {
namespace {

// Parses `args` (without the program name); the error's explanation, or "" when it parses.
std::string parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("meshtest")};
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    return "";
  } catch (const CLI::ParseError& e) {
    return explain_parse_error(app, e, static_cast<int>(argv.size()), argv.data());
  }
}

TEST(CliHabits, ReachSubcommandsRegisteredLater) {
  CLI::App app;
  app.require_subcommand(1);
  ConsoleHabits habits;
  add_console_habits(app, habits);
  int widgets = 0;
  CLI::App* later = app.add_subcommand("frobnicate", "added after the habits");
  later->add_option("--widgets", widgets);
  EXPECT_EQ(parse(app, {"frobnicate", "--widgets", "3", "-vv", "--color", "yes"}), "");
  EXPECT_EQ(habits.verbosity, 2);
  EXPECT_TRUE(habits.style(false).color);
  EXPECT_FALSE(ConsoleHabits{}.style(false).color);  // auto: not on a pipe
}

TEST(CliHabits, SuggestTheNearestSubcommandOrOption) {
  CLI::App app;
  app.require_subcommand(1);
  ConsoleHabits habits;
  add_console_habits(app, habits);
  int widgets = 0;
  app.add_subcommand("frobnicate", "")->add_option("--widgets", widgets);
  app.add_subcommand("status", "");
  EXPECT_NE(parse(app, {"frobnicaet"}).find("unknown subcommand 'frobnicaet': did you mean 'frobnicate'?"),
            std::string::npos);
  CLI::App again;
  ConsoleHabits h2;
  add_console_habits(again, h2);
  again.add_subcommand("frobnicate", "")->add_option("--widgets", widgets);
  EXPECT_NE(parse(again, {"frobnicate", "--widgest", "2"}).find("did you mean '--widgets'?"), std::string::npos);
}

// `--root DIR ID ID`: the ids are positionals, not more roots (CLI11 lets a
// vector option take every value up to the next option); repeating the option adds a root.
TEST(CliHabits, ARepeatableOptionTakesOneValuePerOccurrence) {
  CLI::App app;
  ConsoleHabits habits;
  add_console_habits(app, habits);
  std::vector<std::string> roots, ids, only;
  CLI::App* later = app.add_subcommand("frobnicate", "added after the habits");
  later->add_option("--root", roots);
  later->add_option("--only", only)->delimiter(',');
  later->add_option("ids", ids);
  EXPECT_EQ(parse(app, {"frobnicate", "--root", "a", "x/1", "--only", "p,q", "x/2", "--root", "b", "x/3"}), "");
  EXPECT_EQ(roots, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(only, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(ids, (std::vector<std::string>{"x/1", "x/2", "x/3"}));
}

// Counts: a whole number in range, else the option, the range and the value.
TEST(CliHabits, WholeNumberChecksNameTheRange) {
  CLI::App app;
  size_t jobs = 0;
  app.add_option("-j,--jobs", jobs)->check(whole_number_at_least(1));
  EXPECT_EQ(parse(app, {"-j", "3"}), "");
  EXPECT_EQ(jobs, 3u);
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"-3", "--jobs: expected a whole number >= 1, got -3"},
           {"0", "--jobs: expected a whole number >= 1, got 0"},
           {"2.5", "--jobs: expected a whole number >= 1, got '2.5'"}}) {
    CLI::App again;
    again.add_option("-j,--jobs", jobs)->check(whole_number_at_least(1));
    EXPECT_NE(parse(again, {"-j", value}).find(message), std::string::npos) << value << ": " << parse(again, {"-j", value});
  }
}

}  // namespace
}  // namespace meshtest::runner
