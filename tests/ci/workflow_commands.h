// Reading the command lines out of a GitHub Actions workflow: the shell words
// of every `run:` step, with ${{ }} expressions replaced, and the ones that
// invoke meshtest (directly or through scripts/run) as meshtest arguments.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace meshtest::ci {

// Simple commands of a shell script: words with quotes removed, split at
// newlines (outside quotes, after `\` continuations are joined), `&&`, `||`,
// `;`, `|` and `&`; comments dropped.
std::vector<std::vector<std::string>> shell_commands(const std::string& script);

// What scripts/run adds in front of its arguments (`run --junitxml FILE`) and
// the selection it uses without arguments, read from the script itself.
struct ScriptsRun {
  std::vector<std::string> prefix;
  std::vector<std::string> default_selection;
};
ScriptsRun read_scripts_run(const std::string& script_text);

struct MeshtestInvocation {
  std::string job;                // the job's id
  std::string line;               // the command as written, expressions replaced
  std::vector<std::string> args;  // meshtest's arguments (scripts/run: with its prefix)
};

// Every meshtest invocation in `workflow`'s run steps. `${{ matrix.X }}` is
// the job's first listed value of X, any other expression "1".
std::vector<MeshtestInvocation> meshtest_invocations(const YAML::Node& workflow, const ScriptsRun& scripts_run);

}  // namespace meshtest::ci
