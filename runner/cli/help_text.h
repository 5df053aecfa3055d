// How meshtest's help reads: flags shown as a user types them (--perf[=N],
// --no-strict-xfail, not CLI11's --perf{5} and --no-strict-xfail{false}),
// every subcommand's positional arguments and one example under its options,
// and the whole help (the program and every subcommand) printed at once,
// as text (--help-all) or as the Markdown of docs/reference/cli.md
// (--help-markdown), so the reference page is the binary's own words.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace meshtest::runner {

// Flag names without CLI11's "{default}": a negated flag shows its bare name,
// a flag that takes a value shows "[=N]". Set it on the app before adding
// subcommands (they copy the parent's formatter).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
};

// Puts "Positional arguments: none" (where there are none) and
// "Example: meshtest ..." at the head of every subcommand's footer. Call it
// after every subcommand is added; a subcommand without an example in the
// table gets none (tests/docs/cli_reference_test.cpp fails then).
void add_usage_notes(CLI::App& app);

// --help-all (the help of the program and every subcommand, as text) and
// --help-markdown (the same as the Markdown page docs/reference/cli.md).
void add_help_all_flags(CLI::App& app);

// The help of the program then of every subcommand, as `--help` prints each.
std::string help_all_text(const CLI::App& app);
// That help as Markdown: a title, a list of links, one section per command.
std::string help_markdown(const CLI::App& app);

}  // namespace meshtest::runner
