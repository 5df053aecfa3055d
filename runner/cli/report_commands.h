// The subcommands that read the results store: report (HTML dashboard, or
// one run as a CSV/Markdown table; with --unlisted/--stale/--placeholders the
// config's coverage gaps instead, from discovery, no store), history, diff,
// flaky, promote, runs. CLI glue only; the logic is in
// reports/. A store may hold several arches (one nightly run id, many
// arches): with --arch the commands read that arch only; without, diff
// compares arch by arch and the others say which arch they use.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}
namespace meshtest::reports {
class ResultStore;
}

namespace meshtest::runner {

// The results store every command reads and `run` writes unless --db names another.
inline constexpr const char* kDefaultResultsStore = "meshtest-results.db";

// The store at `db` for a command that only reads it: a missing SQLite file
// is an error (meshtest::Error), never created by accident.
std::unique_ptr<reports::ResultStore> open_existing(const std::string& db);

struct ReportCommandOptions {
  std::string db = kDefaultResultsStore;
  std::string out;  // "": meshtest-report.html for html, stdout for csv and md
  std::string format = "html";  // report --format html | csv | md
  std::string run_id;           // report --run (csv, md); "": the newest run
  bool unlisted = false, stale = false, placeholders = false;  // report: coverage gaps (runner/cli/coverage_gaps.h)
  std::vector<std::string> models_roots;                       // report with coverage gaps: --models-root
  std::string title = "meshtest results";
  std::string test_id;
  std::string run_a, run_b;
  std::string config_dir;
  std::string arch;  // --arch; "": see the top of this file
  int runs = 0;  // 0: the command's default
  int limit = 20;
  double pcc_margin = 0.005;
  double time_factor = 1.5;
  double time_floor = 1.0;
  bool fail_on_slower = false;
  double perf_margin = 0.05;  // diff: perf regressions (modelled device time, perf-run execution)
  bool fail_on_perf = false;
  bool write = false;
  bool raise_pcc = false;
};

class ReportCommands {
 public:
  // Adds report, history, diff, flaky, promote and runs to `app`.
  explicit ReportCommands(CLI::App& app);
  // The exit status of the chosen subcommand; nullopt when none of these was chosen.
  std::optional<int> run() const;

 private:
  ReportCommandOptions o_;
  CLI::App *report_, *history_, *diff_, *flaky_, *promote_, *runs_;
};

}  // namespace meshtest::runner
