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
  std::string matrix;             // the job's matrix values it ran with ("arch=n150 shard=1"; "" without a matrix)
  std::string line;               // the command as written, expressions replaced
  std::vector<std::string> args;  // meshtest's arguments (scripts/run: with its prefix)
};

// Which values of a job's matrix the invocations are expanded over.
enum class MatrixExpansion {
  First,  // one invocation per command: the first listed value of every key
  Every,  // one per combination of the keys' values (as GitHub runs the job)
};

// Every meshtest invocation in `workflow`'s run steps. `${{ matrix.X }}` is a
// value of the job's matrix key X (a key listing values; `include`/`exclude`
// are not read), any other expression "1".
std::vector<MeshtestInvocation> meshtest_invocations(const YAML::Node& workflow, const ScriptsRun& scripts_run,
                                                     MatrixExpansion expansion = MatrixExpansion::First);

}  // namespace meshtest::ci
