// `meshtest triage`: a run's failures grouped by failure class and summary,
// labelled new / persisting / flaky against earlier runs, and what was fixed,
// as a console table, JSON (--json) or a Markdown file (--markdown FILE).
// CLI glue only; the logic is reports/triage.h, the text reports/triage_text.h.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "reports/failure_classes.h"
#include "runner/cli/report_commands.h"

namespace CLI {
class App;
}

namespace meshtest::runner {

struct TriageCommandOptions {
  std::string db = kDefaultResultsStore;
  std::string run;         // --run; "": the latest
  std::string against;     // --against R0
  int days = 0;            // --days N
  std::string arch, backend;
  bool json = false;       // JSON on stdout instead of the console table
  std::string markdown;    // --markdown FILE
  std::string config_dir;  // where failure_reasons.yaml is looked for
};

// The failure classes of `config_dir` ("": $MESHTEST_CONFIG_DIR, then the
// source test_config), else meshtest's shipped ones, for results stored
// without a class; nullptr when there are none. Diagnostics go to stderr;
// errors in the file throw meshtest::Error.
std::shared_ptr<const reports::FailureClasses> failure_classes_for(const std::string& config_dir);

class TriageCommand {
 public:
  explicit TriageCommand(CLI::App& app);
  // The exit status when `triage` was chosen (0; 2 for an unknown run, store or bad failure classes); else nullopt.
  std::optional<int> run() const;

 private:
  TriageCommandOptions o_;
  CLI::App* triage_;
};

}  // namespace meshtest::runner
