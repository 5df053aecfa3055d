// Restricting the shipped workflows' `meshtest run` command lines to quick
// cases that a test can run, and merging the identical ones.
#include "tests/ci/shipped_selections.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace meshtest::ci {

const char* const kQuickCases = "(tiny or mnist) and not (whisper_tiny and training)";

namespace {

// Options of `meshtest run` that say where results go, which part of the
// selection runs or how long to wait on the store: they take a value.
// --changed REF depends on the git state of the checkout (the PR's base), not
// on the selection the test can run: dropped, so the rest still runs.
constexpr std::array<std::string_view, 14> kDroppedOptions = {"--db",
                                                              "--junitxml",
                                                              "--json",
                                                              "--run-id",
                                                              "--shard",
                                                              "--spool",
                                                              "--queue",
                                                              "--queue-lease",
                                                              "--resume",
                                                              "--save-tensors",
                                                              "--serialize",
                                                              "--durations",
                                                              "--store-retry-timeout",
                                                              "--changed"};
// ... and flags that read the previous run from the store.
constexpr std::array<std::string_view, 4> kDroppedFlags = {"--lf", "--last-failed", "--ff", "--failed-first"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<std::string> without_output_options(const std::vector<std::string>& run_args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < run_args.size(); ++i) {
    const std::string& arg = run_args[i];
    const std::string name = arg.substr(0, arg.find('='));
    const bool inline_value = name.size() < arg.size();
    if (listed(kDroppedFlags, arg)) continue;
    if (listed(kDroppedOptions, name)) {
      if (!inline_value) ++i;  // its value
      continue;
    }
    out.push_back(arg);
  }
  return out;
}

std::vector<std::string> restricted_run(const std::vector<std::string>& run_args, const std::string& quick) {
  std::vector<std::string> out;
  std::string keyword;
  const std::vector<std::string> kept = without_output_options(run_args);
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i] == "-k" && i + 1 < kept.size()) {
      keyword = kept[++i];
      continue;
    }
    out.push_back(kept[i]);
  }
  out.push_back("-k");
  out.push_back(keyword.empty() ? quick : "(" + keyword + ") and (" + quick + ")");
  return out;
}

std::vector<ShippedSelection> shipped_selections(const std::vector<WorkflowInvocations>& workflows,
                                                 const std::string& quick) {
  std::vector<ShippedSelection> out;
  for (const WorkflowInvocations& workflow : workflows) {
    for (const MeshtestInvocation& call : workflow.calls) {
      if (call.args.empty() || call.args[0] != "run") continue;
      const std::vector<std::string> args = restricted_run(call.args, quick);
      std::string source = workflow.file + " " + call.job;
      if (!call.matrix.empty()) source += " " + call.matrix;
      auto same = std::find_if(out.begin(), out.end(), [&](const ShippedSelection& s) { return s.args == args; });
      if (same == out.end()) {
        out.push_back({args, {source}});
      } else {
        same->sources.push_back(source);
      }
    }
  }
  return out;
}

}  // namespace meshtest::ci
