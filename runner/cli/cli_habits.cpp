// Habits shared by every subcommand (see cli_habits.h).
#include "runner/cli/cli_habits.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace meshtest::runner {

namespace {

// Edits between two words, a swap of neighbours counting as one ("rnu" is one from "run").
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// The candidates closest to `word` (a third of its length in edits, at least 2; or a prefix of one).
std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& candidates) {
  size_t best = std::max<size_t>(2, word.size() / 3);
  std::vector<std::string> out;
  for (const std::string& c : candidates) {
    const size_t d = c.rfind(word, 0) == 0 && word.size() > 2 ? 1 : edit_distance(word, c);
    if (d < best) {
      best = d;
      out.clear();
    }
    if (d == best && d <= std::max<size_t>(2, word.size() / 3)) out.push_back(c);
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? (i + 1 == words.size() ? " or '" : ", '") : "'") + words[i] + "'";
  return out;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

bool is_option_name(const std::string& arg, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), arg) != names.end();
}

// A negative number is a value, not an option.
bool looks_like_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1])) && arg[1] != '.';
}

// `whole`: an integer count (jobs, reruns, ...), so "2.5" and "-3" are refused
// here with the range instead of wrapping or failing CLI11's conversion.
CLI::Validator number_at_least(double low, bool inclusive, bool whole) {
  const std::string kind = whole ? "a whole number " : "a number ";
  const std::string low_text = whole || low == 0 ? std::to_string(static_cast<long>(low)) : std::to_string(low);
  const std::string bound = std::string(inclusive ? ">= " : "> ") + low_text;
  return CLI::Validator(
      [low, inclusive, whole, kind, bound](std::string& value) -> std::string {
        char* end = nullptr;
        const double v =
            whole ? static_cast<double>(std::strtoll(value.c_str(), &end, 10)) : std::strtod(value.c_str(), &end);
        if (value.empty() || end == value.c_str() || *end != '\0') return "expected " + kind + bound + ", got '" + value + "'";
        if (inclusive ? v < low : v <= low) return "expected " + kind + bound + ", got " + value;
        return "";
      },
      (whole ? "INT " : "NUMBER ") + bound, "");
}

// A repeatable option (a vector) takes one value per occurrence: CLI11 would
// otherwise let `--models-root DIR ID...` take the test ids as more folders.
void one_value_per_occurrence(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (!o->get_positional() && o->get_items_expected_max() >= CLI::detail::expected_max_vector_size) {
      o->allow_extra_args(false);
    }
  }
}

}  // namespace

ConsoleStyle ConsoleHabits::style(bool terminal) const {
  ConsoleStyle s;
  s.verbosity = verbosity;
  if (color == "yes") s.color = true;
  else if (color == "no") s.color = false;
  else s.color = terminal && std::getenv("NO_COLOR") == nullptr;
  return s;
}

namespace {

void add_habit_options(CLI::App* a, ConsoleHabits& habits) {
  a->add_flag_function("-v,--verbose", [&habits](std::int64_t n) { habits.verbosity += static_cast<int>(n); },
                       "More output: -v a line for every case (also on a terminal), -vv also debug logging "
                       "(or MESHTEST_LOG_LEVEL=debug); before or after the subcommand");
  a->add_flag_function("-q,--quiet", [&habits](std::int64_t n) { habits.verbosity -= static_cast<int>(n); },
                       "Less output: lines only for cases that did not pass, and the summary");
  a->add_option("--color", habits.color, "Colour the console: auto (on a terminal, unless NO_COLOR is set), yes, no")
      ->check(CLI::IsMember({"auto", "yes", "no"}));
}

}  // namespace

void add_console_habits(CLI::App& app, ConsoleHabits& habits) {
  add_habit_options(&app, habits);
  // Subcommands get them when parsing starts, so one registered after this call has them too.
  app.preparse_callback([&app, &habits](std::size_t) {
    one_value_per_occurrence(app);
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      if (sub->get_option_no_throw("--color") == nullptr) add_habit_options(sub, habits);
      one_value_per_occurrence(*sub);
    }
  });
}

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  std::ostringstream out;
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const CLI::App* sub = parsed.empty() ? nullptr : parsed.front();
  std::vector<std::string> names = option_names(app);
  if (sub) {
    const std::vector<std::string> more = option_names(*sub);
    names.insert(names.end(), more.begin(), more.end());
  }
  std::vector<std::string> hints;
  bool subcommand_seen = sub != nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (looks_like_option(arg)) {
      const std::string name = arg.substr(0, arg.find('='));
      const bool combined_shorts = name.size() > 2 && name[1] != '-';
      // Under an unknown subcommand every option looks unknown; a one-letter option has no near miss worth naming.
      if (is_option_name(name, names) || combined_shorts || name.size() <= 2 || (!sub && subcommand_seen)) continue;
      const std::vector<std::string> near = closest(name, names);
      if (!near.empty()) hints.push_back("unknown option '" + name + "': did you mean " + quoted_list(near) + "?");
    } else if (!subcommand_seen) {
      // The first word that is not an option's value names the subcommand.
      if (i > 1 && looks_like_option(argv[i - 1]) && std::string(argv[i - 1]).find('=') == std::string::npos) {
        const CLI::Option* o = app.get_option_no_throw(argv[i - 1]);
        if (o && o->get_type_size() != 0) continue;
      }
      subcommand_seen = true;
      std::vector<std::string> subcommands;
      for (const CLI::App* s : const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; })) {
        subcommands.push_back(s->get_name());
      }
      const std::vector<std::string> near = closest(arg, subcommands);
      hints.push_back("unknown subcommand '" + arg + "'" +
                      (near.empty() ? "; the subcommands are listed by --help" : ": did you mean " + quoted_list(near) + "?"));
    }
  }
  if (hints.empty()) return std::string(error.what()) + "\n";
  // CLI11's own line adds nothing when the hint names the misspelt subcommand.
  if (error.get_name() != "RequiredError") out << error.what() << "\n";
  for (const std::string& h : hints) out << "meshtest: " << h << "\n";
  return out.str();
}

CLI::Validator non_negative_number() { return number_at_least(0, true, false); }
CLI::Validator positive_number() { return number_at_least(0, false, false); }
CLI::Validator whole_number_at_least(long low) { return number_at_least(static_cast<double>(low), true, true); }

}  // namespace meshtest::runner
