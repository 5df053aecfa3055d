// Shell words and meshtest invocations from workflow run steps.
#include "tests/ci/workflow_commands.h"

#include <regex>
#include <utility>

namespace meshtest::ci {

namespace {

bool is_separator_char(char c) { return c == ';' || c == '&' || c == '|' || c == '\n'; }

// Joins `\` + newline continuations.
std::string join_continuations(const std::string& script) {
  std::string out;
  for (size_t i = 0; i < script.size(); ++i) {
    if (script[i] == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      ++i;
      continue;
    }
    out += script[i];
  }
  return out;
}

// One run of a job: a value for each of its matrix keys, in the matrix's order.
using MatrixValues = std::vector<std::pair<std::string, std::string>>;

// The job's matrix runs: every combination of the listed values, or only the
// first values; one empty run for a job without a matrix.
std::vector<MatrixValues> matrix_runs(const YAML::Node& matrix, MatrixExpansion expansion) {
  std::vector<MatrixValues> runs(1);
  if (!matrix || !matrix.IsMap()) return runs;
  for (const auto& key : matrix) {
    if (!key.second.IsSequence() || key.second.size() == 0) continue;  // include/exclude: not read
    const size_t count = expansion == MatrixExpansion::Every ? key.second.size() : 1;
    std::vector<MatrixValues> grown;
    for (const MatrixValues& run : runs) {
      for (size_t i = 0; i < count; ++i) {
        grown.push_back(run);
        grown.back().emplace_back(key.first.as<std::string>(), key.second[i].as<std::string>());
      }
    }
    runs = std::move(grown);
  }
  return runs;
}

std::string describe(const MatrixValues& values) {
  std::string out;
  for (const auto& [key, value] : values) out += (out.empty() ? "" : " ") + key + "=" + value;
  return out;
}

std::string replace_expressions(const std::string& text, const MatrixValues& matrix) {
  static const std::regex expression(R"(\$\{\{\s*([^}]*?)\s*\}\})");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), expression);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, it->position() - last);
    const std::string expr = (*it)[1];
    std::string value = "1";
    for (const auto& [key, listed] : matrix) {
      if (expr == "matrix." + key) value = listed;
    }
    out += value;
    last = it->position() + it->length();
  }
  return out + text.substr(last);
}

bool is_assignment(const std::string& word) {
  static const std::regex assignment("[A-Za-z_][A-Za-z0-9_]*=.*");
  return std::regex_match(word, assignment);
}

// Drops leading shell keywords and VAR=value words.
std::vector<std::string> command_words(std::vector<std::string> words) {
  size_t skip = 0;
  while (skip < words.size() && (words[skip] == "then" || words[skip] == "do" || words[skip] == "else" ||
                                 words[skip] == "!" || words[skip] == "time" || is_assignment(words[skip]))) {
    ++skip;
  }
  words.erase(words.begin(), words.begin() + static_cast<long>(skip));
  return words;
}

bool is_meshtest(const std::string& word) {
  return word == "meshtest" || (word.size() > 9 && word.compare(word.size() - 9, 9, "/meshtest") == 0);
}

}  // namespace

std::vector<std::vector<std::string>> shell_commands(const std::string& raw) {
  const std::string script = join_continuations(raw);
  std::vector<std::vector<std::string>> commands(1);
  std::string word;
  bool in_word = false;
  auto end_word = [&] {
    if (in_word) commands.back().push_back(word);
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!commands.back().empty()) commands.emplace_back();
  };
  for (size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (c == '\'' || c == '"') {
      const size_t close = script.find(c, i + 1);
      word += script.substr(i + 1, (close == std::string::npos ? script.size() : close) - i - 1);
      in_word = true;
      i = close == std::string::npos ? script.size() : close;
    } else if (c == '#' && !in_word) {
      while (i + 1 < script.size() && script[i + 1] != '\n') ++i;
    } else if (is_separator_char(c)) {
      end_command();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_command();
  commands.pop_back();
  return commands;
}

ScriptsRun read_scripts_run(const std::string& script_text) {
  ScriptsRun out;
  for (const auto& words : shell_commands(script_text)) {
    const auto w = command_words(words);
    if (w.size() > 2 && w[0] == "exec" && is_meshtest(w[1])) {
      for (size_t i = 2; i < w.size() && w[i] != "$@"; ++i) out.prefix.push_back(w[i]);
    } else if (w.size() > 2 && w[0] == "set" && w[1] == "--") {
      out.default_selection.assign(w.begin() + 2, w.end());
    }
  }
  return out;
}

namespace {

// The meshtest invocations of one run of a job (its steps with `values`).
void add_invocations(const std::string& job, const YAML::Node& steps, const MatrixValues& values,
                     const ScriptsRun& scripts_run, std::vector<MeshtestInvocation>& out) {
  for (const auto& step : steps) {
    if (!step["run"]) continue;
    for (const auto& words : shell_commands(replace_expressions(step["run"].as<std::string>(), values))) {
      const auto w = command_words(words);
      if (w.empty()) continue;
      MeshtestInvocation call{job, describe(values), "", {}};
      for (const auto& word : w) call.line += (call.line.empty() ? "" : " ") + word;
      if (is_meshtest(w[0])) {
        call.args.assign(w.begin() + 1, w.end());
      } else if (w[0] == "scripts/run") {
        call.args = scripts_run.prefix;
        const bool bare = w.size() == 1;
        call.args.insert(call.args.end(), bare ? scripts_run.default_selection.begin() : w.begin() + 1,
                         bare ? scripts_run.default_selection.end() : w.end());
      } else {
        continue;
      }
      out.push_back(std::move(call));
    }
  }
}

}  // namespace

std::vector<MeshtestInvocation> meshtest_invocations(const YAML::Node& workflow, const ScriptsRun& scripts_run,
                                                     MatrixExpansion expansion) {
  std::vector<MeshtestInvocation> out;
  for (const auto& job : workflow["jobs"]) {
    const YAML::Node matrix = job.second["strategy"] ? job.second["strategy"]["matrix"] : YAML::Node();
    for (const MatrixValues& values : matrix_runs(matrix, expansion)) {
      add_invocations(job.first.as<std::string>(), job.second["steps"], values, scripts_run, out);
    }
  }
  return out;
}

}  // namespace meshtest::ci
