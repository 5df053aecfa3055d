// The command-line habits as a mechanism (runner/cli/cli_habits.h): they
// reach a subcommand registered after add_console_habits, and a misspelt
// subcommand or option of any subcommand gets its "did you mean".
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

}  // namespace
}  // namespace meshtest::runner
