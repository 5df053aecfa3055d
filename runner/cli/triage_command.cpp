// triage: options, the failure classes for results stored without one, printing and the Markdown file.
#include "runner/cli/triage_command.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "reports/failure_classes.h"
#include "reports/result_store.h"
#include "reports/triage.h"
#include "reports/triage_text.h"
#include "runner/cli/cli_habits.h"

#ifndef MESHTEST_DEFAULT_CONFIG_DIR
#define MESHTEST_DEFAULT_CONFIG_DIR "test_config"
#endif

namespace meshtest::runner {

using namespace meshtest::reports;

std::shared_ptr<const FailureClasses> failure_classes_for(const std::string& config_dir) {
  std::string dir = config_dir;
  if (dir.empty()) dir = std::getenv("MESHTEST_CONFIG_DIR") ? std::getenv("MESHTEST_CONFIG_DIR") : MESHTEST_DEFAULT_CONFIG_DIR;
  const std::string file = find_failure_reasons(dir, MESHTEST_DEFAULT_CONFIG_DIR);
  if (file.empty()) return nullptr;
  std::vector<config::Diagnostic> diagnostics;
  auto classes = std::make_shared<const FailureClasses>(load_failure_classes(file, diagnostics));
  for (const config::Diagnostic& d : diagnostics) std::cerr << d.to_string() << "\n";
  if (config::count_errors(diagnostics) > 0) throw Error("the failure classes in " + file + " have errors");
  return classes;
}

namespace {

int cmd_triage(const TriageCommandOptions& o) {
  auto store = open_existing(o.db);
  const TriageRuns runs = load_triage_runs(*store, {o.run, o.against, o.days});
  TriageOptions options;
  options.arch = o.arch;
  options.backend = o.backend;
  options.previous_only = runs.previous_only;
  const Triage triage = triage_run(runs.run, runs.earlier, options, failure_classifier(failure_classes_for(o.config_dir)));
  if (!o.markdown.empty()) write_file_atomically(o.markdown, triage_markdown(triage), "the triage Markdown");
  std::cout << (o.json ? triage_json(triage) : triage_console(triage));
  if (!o.markdown.empty() && !o.json) std::cout << "Markdown written to " << o.markdown << "\n";
  return 0;
}

}  // namespace

TriageCommand::TriageCommand(CLI::App& app) {
  triage_ = app.add_subcommand(
      "triage",
      "A run's failures grouped by failure class and summary, each group and case labelled new, persisting (since "
      "which run and commit) or flaky against earlier runs of its arch and backend, and the cases fixed since");
  triage_->add_option("--db", o_.db, "Results store: SQLite file or postgresql:// URL")->capture_default_str();
  triage_->add_option("--run", o_.run, "The run to triage (default: the latest)");
  auto* against = triage_->add_option("--against", o_.against,
                                      "Compare with this run only (default: the previous run of each arch and backend)");
  triage_->add_option("--days", o_.days, "Compare with every run started within N days before the triaged one")
      ->check(whole_number_at_least(1))
      ->excludes(against);
  triage_->add_option("--arch", o_.arch, "Only this arch's results");
  triage_->add_option("--backend", o_.backend, "Only this backend's results (simulated, pjrt)");
  triage_->add_flag("--json", o_.json, "Print JSON (stable keys) instead of the console table");
  triage_->add_option("--markdown", o_.markdown, "Also write the triage as Markdown to FILE (for an issue or a chat)");
  triage_->add_option("--config-dir", o_.config_dir,
                      "Folder whose failure_reasons.yaml classifies results stored without a class (default: "
                      "$MESHTEST_CONFIG_DIR, then the source test_config; else meshtest's shipped one)");
}

std::optional<int> TriageCommand::run() const {
  if (!*triage_) return std::nullopt;
  try {
    return cmd_triage(o_);
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace meshtest::runner
