// `meshtest changed --base REF` (the ids a change since REF touches, each
// with its reason; -q: ids only) and the `--changed REF` option of `run` and
// `collect` (the selection narrowed to those ids). The logic is in
// runner/cli/changed_cases.h.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "runner/collection/collection.h"

namespace CLI {
class App;
}

namespace meshtest::runner {

// Adds `--changed REF` to `cmd` (run, collect), stored in `options.changed_base`.
void add_changed_option(CLI::App* cmd, CommonOptions& options);

// With --changed: keeps only the selected cases changed since the base
// (said on `report`); false (the error printed) when git cannot answer.
bool keep_changed_cases(Collected& collected, const CommonOptions& options, std::ostream& report);

// --changed found nothing to run: not an empty selection's exit 5 but 0 (a
// pull request that changes no expectation and no loader has nothing to gate).
inline bool nothing_changed(const Collected& collected, const CommonOptions& options) {
  return !options.changed_base.empty() && collected.selection.selected.empty();
}

class ChangedCommand {
 public:
  explicit ChangedCommand(CLI::App& app);
  // The exit status when `changed` was chosen (ids only when `verbosity` < 0), else nullopt.
  std::optional<int> run(int verbosity) const;

 private:
  CommonOptions options_;
  std::string base_;
  CLI::App* command_;
};

}  // namespace meshtest::runner
