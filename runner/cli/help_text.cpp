// meshtest's help: flag names, positional arguments and examples, the whole help at once (see help_text.h).
#include "runner/cli/help_text.h"

#include <cctype>
#include <iostream>
#include <map>
#include <sstream>

namespace meshtest::runner {

namespace {

// One example per subcommand, as a user would type it.
const std::map<std::string, std::string>& examples() {
  static const std::map<std::string, std::string> table = {
      {"collect", "meshtest collect -k resnet -m \"single_device and not training\" --arch n300"},
      {"run", "meshtest run -k \"resnet and inference\" --arch n150 -j 4 --junitxml results.xml"},
      {"codegen", "meshtest codegen resnet/native-resnet18-single_device-inference --out generated/"},
      {"merge", "meshtest merge all.db shard-1.db shard-2.db"},
      {"mutate", "meshtest mutate --mutants gelu_scale_1pct,softmax_scale_1pct -k mnist --isolation none"},
      {"export", "meshtest export resnet/native-resnet18-single_device-inference --format stablehlo --out shlo/"},
      {"ops", "meshtest ops irs/ --only matmul,add"},
      {"coverage", "meshtest coverage -m \"push and n150\" --require single-chip"},
      {"report", "meshtest report --out dashboard.html"},
      {"history", "meshtest history resnet/native-resnet18-single_device-inference --limit 10"},
      {"diff", "meshtest diff --fail-on-slower"},
      {"flaky", "meshtest flaky --runs 20"},
      {"promote", "meshtest promote --runs 3 --write"},
      {"runs", "meshtest runs --runs 5"},
      {"validate-config", "meshtest validate-config --config-dir test_config"},
      {"show", "meshtest show resnet/native-resnet18-single_device-inference --arch n300"},
      {"triage", "meshtest triage --markdown triage.md"},
      {"changed", "meshtest changed --base origin/main -q"},
  };
  return table;
}

bool has_positionals(const CLI::App& sub) {
  return !sub.get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
}

// A flag's value in CLI11's notation: "--perf{5}" gives "5", "--no-strict-xfail{false}" gives "false".
bool takes_a_value(const std::string& flag_default) { return flag_default != "true" && flag_default != "false"; }

// Every subcommand, in the order they were added (the order of `meshtest --help`).
std::vector<const CLI::App*> subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

// The name that --help shows above a subcommand's usage: "meshtest run".
std::string command_name(const CLI::App& app, const CLI::App* sub) {
  return sub ? app.get_name() + " " + sub->get_name() : app.get_name();
}

// GitHub's anchor of a heading "`meshtest validate-config`": "meshtest-validate-config".
std::string anchor(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    if (c == ' ')
      out += '-';
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
      out += static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  std::string name = CLI::Formatter::make_option_name(opt, is_positional);
  for (size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
    const size_t close = name.find('}', open);
    if (close == std::string::npos) break;
    const std::string value = name.substr(open + 1, close - open - 1);
    const bool number = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    name.replace(open, close - open + 1, takes_a_value(value) ? (number ? "[=N]" : "[=VALUE]") : "");
  }
  return name;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  std::string opts = CLI::Formatter::make_option_opts(opt);
  // A flag that takes a value (--perf[=N]) says its range in its description, not as CLI11's ":INT in [1 - 1000]".
  const std::string type = opt->get_type_name();
  if (opt->get_expected_max() == 0 && !type.empty() && opts.rfind(" " + type, 0) == 0) opts.erase(0, type.size() + 1);
  return opts;
}

void add_usage_notes(CLI::App& app) {
  app.footer([] {
    return std::string(
        "Examples:\n  meshtest collect -k resnet\n  meshtest run -k \"resnet and inference\" --arch n300\n"
        "  meshtest run --help\n");
  });
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    std::string notes;
    if (!has_positionals(*sub)) {
      notes += sub->get_allow_extras()
                   ? "Positional arguments: test ids and any `run` option, passed on to each `meshtest run`.\n"
                   : "Positional arguments: none.\n";
    }
    const auto example = examples().find(sub->get_name());
    if (example != examples().end()) notes += "Example:\n  " + example->second + "\n";
    if (!notes.empty()) sub->footer([notes] { return notes; });  // CLI11 prints it above the footer, then a newline
  }
}

std::string help_all_text(const CLI::App& app) {
  std::string out = app.help();
  for (const CLI::App* sub : subcommands(app)) out += "\n" + sub->help(app.get_name());
  return out;
}

std::string help_markdown(const CLI::App& app) {
  std::vector<const CLI::App*> commands{nullptr};  // nullptr: the program itself
  for (const CLI::App* sub : subcommands(app)) commands.push_back(sub);
  std::ostringstream md;
  md << "# Command-line reference\n\n"
        "<!-- Generated from the binary's own help; do not edit. Regenerate with:\n"
        "     build/meshtest --help-markdown > docs/reference/cli.md\n"
        "     (tests/docs/cli_reference_test.cpp fails while this page and the binary differ). -->\n\n"
        "Every command's `--help`, as `meshtest` prints it. What the exit codes mean: "
        "[exit codes](exit-codes.md); the `MESHTEST_*` variables: [environment](environment.md).\n\n";
  for (const CLI::App* sub : commands) {
    const std::string heading = "`" + command_name(app, sub) + "`";
    md << "- [" << heading << "](#" << anchor(heading) << ")\n";
  }
  for (const CLI::App* sub : commands) {
    md << "\n## `" << command_name(app, sub) << "`\n\n```text\n"
       << (sub ? sub->help(app.get_name()) : app.help()) << "```\n";
  }
  return md.str();
}

void add_help_all_flags(CLI::App& app) {
  app.add_flag_callback(
      "--help-all",
      [&app] {
        std::cout << help_all_text(app);
        throw CLI::Success();
      },
      "Print the help of meshtest and of every subcommand, and exit");
  app.add_flag_callback(
      "--help-markdown",
      [&app] {
        std::cout << help_markdown(app);
        throw CLI::Success();
      },
      "Print that help as Markdown (the page docs/reference/cli.md), and exit");
}

}  // namespace meshtest::runner
