// Command-line habits that hold for every subcommand, including ones added
// later: -q/-v/-vv and --color accepted before or after the subcommand,
// "did you mean" for a misspelt subcommand or option, a repeatable option
// takes one value per occurrence (never the positionals after it), and
// numeric checks whose message names the option, the range and the value
// (not CLI11's double range).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "runner/engine/console_report.h"

namespace meshtest::runner {

struct ConsoleHabits {
  int verbosity = 0;          // -q: -1, -v: 1, -vv: 2 (debug logging)
  std::string color = "auto";  // --color auto|yes|no; NO_COLOR (any value) turns auto off
  // The style of a console on a stream that is (or not) a terminal.
  ConsoleStyle style(bool terminal) const;
};

// Adds -q, -v/-vv and --color to `app` now and, when parsing starts, to
// every subcommand it has then (also those registered after this call);
// then too, every repeatable option of them takes one value per occurrence.
void add_console_habits(CLI::App& app, ConsoleHabits& habits);

// A usage error's message with a "did you mean" line when the subcommand or
// an option on the command line is close to a known one.
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv);

// Number checks: "--timeout: expected a number >= 0, got 'abc'".
CLI::Validator non_negative_number();
CLI::Validator positive_number();
// Counts: "--jobs: expected a whole number >= 1, got -3".
CLI::Validator whole_number_at_least(long low);

}  // namespace meshtest::runner
