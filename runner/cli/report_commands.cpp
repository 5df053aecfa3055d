// report | history | diff | flaky | promote | runs: options, store opening, printing.
#include "runner/cli/report_commands.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "reports/case_table.h"
#include "reports/dashboard.h"
#include "reports/promote.h"
#include "reports/result_rows.h"
#include "reports/result_store.h"
#include "reports/run_analysis.h"
#include "runner/cli/cli_habits.h"
#include "runner/cli/coverage_gaps.h"
#include "runner/cli/runs_command.h"
#include "runner/cli/triage_command.h"
#include "runner/collection/matrix.h"

#ifndef MESHTEST_DEFAULT_CONFIG_DIR
#define MESHTEST_DEFAULT_CONFIG_DIR "test_config"
#endif

namespace meshtest::runner {

std::unique_ptr<reports::ResultStore> open_existing(const std::string& db) {
  if (!reports::is_postgres_url(db) && !std::filesystem::exists(db)) {
    throw Error("no results database at '" + db + "' (run `meshtest run` first, or pass --db)");
  }
  return reports::open_store(db);
}

namespace {

using namespace meshtest::reports;

std::string pcc_text(double pcc) {
  char buf[32] = "-";
  if (std::isfinite(pcc)) std::snprintf(buf, sizeof buf, "%.6f", pcc);
  return buf;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The arch a one-arch command reads: --arch, else the only arch of `runs`,
// else (several) the default arch if present or the first, said on stderr.
std::string chosen_arch(const std::string& requested, const std::vector<RunResults>& runs) {
  if (!requested.empty()) return requested;
  std::set<std::string> arches;
  for (const RunResults& r : runs) {
    for (const std::string& a : arches_of(r)) arches.insert(a);
  }
  if (arches.empty()) return "";
  const std::string chosen = arches.count(kDefaultArch) ? kDefaultArch : *arches.begin();
  if (arches.size() > 1) {
    std::cerr << "note: results of " << arches.size() << " arches (" << join_list({arches.begin(), arches.end()})
              << "); using " << chosen << " (pass --arch to choose)\n";
  }
  return chosen;
}

// The last `count` runs scoped to one arch (chosen_arch); `every_arch` gets them unscoped.
std::vector<RunResults> recent_runs_of_one_arch(ResultStore& store, int count, const std::string& requested,
                                                std::vector<RunResults>* every_arch = nullptr) {
  std::vector<RunResults> all = load_recent_runs(store, count);
  const std::string arch = chosen_arch(requested, all);
  std::vector<RunResults> scoped = arch.empty() ? std::vector<RunResults>{} : scoped_to_arch(all, arch);
  if (every_arch) *every_arch = std::move(all);
  return scoped;
}

// Perf changes: the figure before -> after and the factor.
void print_perf_changes(const std::string& title, const std::vector<CaseChange>& changes,
                        double CaseResult::*figure) {
  if (changes.empty()) return;
  std::cout << title << " (" << changes.size() << "):\n";
  for (const CaseChange& c : changes) {
    const double was = c.before->*figure, now = c.after->*figure;
    char line[120];
    std::snprintf(line, sizeof line, "  %10.3f ms -> %10.3f ms  x%.3f  ", was * 1e3, now * 1e3, now / was);
    std::cout << line << c.test_id << "\n";
  }
}

void print_changes(const std::string& title, const std::vector<CaseChange>& changes) {
  if (changes.empty()) return;
  std::cout << title << " (" << changes.size() << "):\n";
  for (const CaseChange& c : changes) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s -> %-8s pcc %s -> %s  time %.2fs -> %.2fs  ",
                  c.before ? std::string(outcome_name(c.before->outcome)).c_str() : "(new)",
                  std::string(outcome_name(c.after->outcome)).c_str(),
                  pcc_text(c.before ? c.before->pcc : NAN).c_str(), pcc_text(c.after->pcc).c_str(),
                  c.before ? c.before->wall_seconds : 0.0, c.after->wall_seconds);
    std::cout << line << c.test_id << "\n";
    if (!c.after->error_message.empty() && is_failure(c.after->outcome)) {
      std::cout << "           " << c.after->bringup_status << ": " << first_line(c.after->error_message) << "\n";
    }
  }
}

// report --unlisted / --stale / --placeholders: the config against discovery on one arch (default n150).
int cmd_coverage_gaps(const ReportCommandOptions& o) {
  CommonOptions common;
  common.models_roots = o.models_roots;
  common.config_dir = o.config_dir;
  if (!o.arch.empty()) common.arch = o.arch;
  std::ostringstream problems;  // config warnings repeat the stale entries: printed only when collection fails
  const auto collected = collect_cases(common, &problems);
  if (!collected) {
    std::cerr << problems.str();
    return 2;
  }
  print_coverage_gaps(std::cout, find_coverage_gaps(*collected, common.arch), {o.unlisted, o.stale, o.placeholders});
  return 0;
}

// report --format csv|md: one row per case of one run (--run, else the newest), arch by arch.
int cmd_case_table(const ReportCommandOptions& o) {
  auto store = open_existing(o.db);
  std::optional<RunInfo> info;
  if (!o.run_id.empty()) {
    info = store->find_run(o.run_id);
    if (!info) throw Error("no run '" + o.run_id + "' in '" + o.db + "'");
  } else {
    const auto recent = store->recent_runs(1);
    if (recent.empty()) throw Error("'" + o.db + "' has no runs");
    info = recent.front();
  }
  const RunResults run = load_run(*store, *info);
  std::vector<RunResults> scoped;  // kept alive: the rows point into them
  for (const std::string& arch : o.arch.empty() ? arches_of(run) : std::vector<std::string>{o.arch}) {
    scoped.push_back(for_arch(run, arch));
  }
  std::vector<const CaseResult*> rows;
  for (const RunResults& r : scoped) {
    for (const auto& [id, result] : final_results(r.results)) rows.push_back(result);
    if (!r.missing.empty()) {
      std::cerr << "note: run " << info->run_id << " on " << r.arch << ": " << r.missing.size()
                << " selected case(s) MISSING (no result, no row)\n";
    }
  }
  const TableFormat format = o.format == "csv" ? TableFormat::Csv : TableFormat::Markdown;
  if (o.out.empty() || o.out == "-") {
    write_case_table(std::cout, rows, format);
    return 0;
  }
  std::ofstream file(o.out);
  write_case_table(file, rows, format);
  if (!file.flush()) throw Error("cannot write '" + o.out + "'");
  std::cerr << rows.size() << " row(s) of run " << info->run_id << " written to " << o.out << "\n";
  return 0;
}

int cmd_report(const ReportCommandOptions& o) {
  if (o.unlisted || o.stale || o.placeholders) return cmd_coverage_gaps(o);
  if (o.format != "html") return cmd_case_table(o);
  auto store = open_existing(o.db);
  std::vector<RunResults> every_arch;
  const auto runs = recent_runs_of_one_arch(*store, o.runs > 0 ? o.runs : 20, o.arch, &every_arch);
  for (const RunResults& r : runs) {
    if (!r.missing.empty()) {
      const size_t not_run = not_run_reasons(r).size();
      std::cout << "run " << r.run.run_id << " on " << r.arch << ": " << r.missing.size()
                << " selected case(s) MISSING (no result"
                << (not_run > 0 ? "; " + std::to_string(not_run) + " not started by the run, e.g. for --budget" : "")
                << ")\n";
    }
  }
  DashboardOptions options;
  options.title = o.title;
  options.diff.pcc_margin = o.pcc_margin;
  options.diff.time_factor = o.time_factor;
  options.classify = failure_classifier(failure_classes_for(o.config_dir));  // the triage section
  const std::string out = o.out.empty() ? "meshtest-report.html" : o.out;
  write_dashboard(out, runs, options, every_arch);
  std::cout << "dashboard of " << runs.size() << " run(s) written to " << out << "\n";
  return 0;
}

int cmd_history(const ReportCommandOptions& o) {
  auto store = open_existing(o.db);
  std::vector<StoredResult> rows = store->test_history(o.test_id, o.limit);
  if (!o.arch.empty()) {
    std::erase_if(rows, [&](const StoredResult& s) { return s.result.arch != o.arch; });
  }
  if (rows.empty()) {
    std::cerr << "no results for '" << o.test_id << "' in " << o.db << "\n";
    return 1;
  }
  std::cout << "history of " << o.test_id << " (newest first)\n";
  for (const StoredResult& s : rows) {
    const CaseResult& r = s.result;
    char line[200];
    std::snprintf(line, sizeof line, "%-26s %-6s %-24s #%d %-8s %-26s pcc=%-9s %7.2fs", s.run_id.c_str(),
                  r.arch.c_str(), r.started_at.c_str(), r.attempt, std::string(outcome_name(r.outcome)).c_str(),
                  r.bringup_status.c_str(), pcc_text(r.pcc).c_str(), r.wall_seconds);
    std::cout << line;
    if (is_failure(r.outcome)) std::cout << "  " << first_line(r.error_message);
    std::cout << "\n";
  }
  return 0;
}

int cmd_diff(const ReportCommandOptions& o) {
  auto store = open_existing(o.db);
  std::string a = o.run_a, b = o.run_b;
  if (b.empty()) {
    const auto recent = store->recent_runs(2);
    if (a.empty()) {
      if (recent.size() < 2) throw Error("diff needs two runs; '" + o.db + "' has " + std::to_string(recent.size()));
      a = recent[1].run_id;
      b = recent[0].run_id;
    } else {
      if (recent.empty()) throw Error("'" + o.db + "' has no runs");
      b = recent[0].run_id;
    }
  }
  for (const auto& id : {a, b}) {
    if (!store->find_run(id)) throw Error("no run '" + id + "' in '" + o.db + "'");
  }
  const RunResults before = load_run(*store, *store->find_run(a)), after = load_run(*store, *store->find_run(b));
  DiffOptions options;
  options.pcc_margin = o.pcc_margin;
  options.time_factor = o.time_factor;
  options.time_floor_seconds = o.time_floor;
  options.fail_on_slower = o.fail_on_slower;
  options.perf_margin = o.perf_margin;
  options.fail_on_perf = o.fail_on_perf;
  // Arch by arch: the later run's arches (or --arch); a case on n150 is never compared with p150.
  const std::vector<std::string> arches = o.arch.empty() ? arches_of(after) : std::vector<std::string>{o.arch};
  bool regressed = false;
  for (const std::string& arch : arches) {
    const RunDiff d = diff_runs(for_arch(before, arch), for_arch(after, arch), options);
    std::cout << "diff " << a << " -> " << b << " on " << arch << "\n";
    print_changes("NEW FAILURES", d.new_failures);
    print_changes("FIXED", d.fixed);
    print_changes("PCC DROPS (> " + std::to_string(o.pcc_margin).substr(0, 6) + ")", d.pcc_drops);
    print_changes("SLOWER (> x" + std::to_string(o.time_factor).substr(0, 4) + " and > " +
                      std::to_string(o.time_floor).substr(0, 4) + "s)" + (o.fail_on_slower ? "" : ", not a regression"),
                  d.slower);
    print_changes("THRESHOLD CHANGES (required_pcc edited, same PCC)", d.threshold_changes);
    const std::string perf_note = std::string(" > +") + std::to_string(100 * o.perf_margin).substr(0, 4) + "%" +
                                  (o.fail_on_perf ? "" : ", not a regression");
    print_perf_changes("PERF: MODELLED DEVICE TIME UP (" + perf_note + ")", d.modelled_slower,
                       &CaseResult::modelled_device_seconds);
    print_perf_changes("PERF: PERF-RUN EXECUTION TIME UP (" + perf_note + ")", d.perf_slower,
                       &CaseResult::perf_execute_seconds);
    if (!d.missing.empty()) std::cout << "MISSING (" << d.missing.size() << "): selected, no result\n";
    for (const std::string& id : d.missing) {
      const auto why = d.not_run_reasons.find(id);
      std::cout << "  " << id << (why == d.not_run_reasons.end() ? "" : " (not run: " + why->second + ")") << "\n";
    }
    std::cout << d.new_failures.size() << " new failure(s), " << d.fixed.size() << " fixed, " << d.pcc_drops.size()
              << " PCC drop(s), " << d.slower.size() << " slower, " << d.threshold_changes.size()
              << " threshold change(s), " << d.modelled_slower.size() + d.perf_slower.size()
              << " perf regression(s), " << d.missing.size()
              << " missing: " << (d.regressed() ? "REGRESSED" : "no regression") << "\n";
    regressed = regressed || d.regressed();
  }
  if (arches.empty()) std::cout << "diff " << a << " -> " << b << ": the later run has no results\n";
  return regressed ? 1 : 0;
}

int cmd_flaky(const ReportCommandOptions& o) {
  auto store = open_existing(o.db);
  const auto runs = recent_runs_of_one_arch(*store, o.runs > 0 ? o.runs : 10, o.arch);
  const auto cases = find_flaky(runs);
  std::cout << cases.size() << " flaky case(s) in the last " << runs.size() << " run(s)\n";
  for (const FlakyCase& c : cases) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-20s flips=%d retried_passes=%d passes=%d/%d  ", c.outcomes.c_str(),
                  c.flips, c.retried_passes, c.passes, c.runs);
    std::cout << line << c.test_id << "\n";
  }
  return 0;
}

int cmd_promote(const ReportCommandOptions& o) {
  auto store = open_existing(o.db);
  const int wanted = o.runs > 0 ? o.runs : 3;
  const auto runs = recent_runs_of_one_arch(*store, wanted, o.arch);
  if (static_cast<int>(runs.size()) < wanted) {
    throw Error("promote --runs " + std::to_string(wanted) + " needs " + std::to_string(wanted) + " runs; '" + o.db +
                "' has " + std::to_string(runs.size()) + " (pass --runs " + std::to_string(runs.size()) + ")");
  }
  std::string dir = o.config_dir;
  if (dir.empty()) dir = std::getenv("MESHTEST_CONFIG_DIR") ? std::getenv("MESHTEST_CONFIG_DIR") : MESHTEST_DEFAULT_CONFIG_DIR;
  PromoteOptions options;
  options.raise_pcc = o.raise_pcc;
  const PromotionPlan plan = plan_promotions(runs, dir, options);
  for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
  for (const auto& change : plan.changes) std::cerr << (o.write ? "promoted: " : "would promote: ") << change << "\n";
  if (o.write) {
    plan.write();
    std::cerr << plan.files.size() << " file(s) updated in " << dir << "\n";
  } else {
    std::cout << plan.unified_diff();
    if (plan.files.empty()) std::cerr << "nothing to promote\n";
  }
  return 0;
}

}  // namespace

ReportCommands::ReportCommands(CLI::App& app) {
  auto db = [this](CLI::App* cmd) {
    cmd->add_option("--db", o_.db, "Results store: SQLite file or postgresql:// URL")->capture_default_str();
    cmd->add_option("--arch", o_.arch,
                    "Read this arch's results only (default: diff compares arch by arch; the others use the "
                    "default arch, or the only one, and say so)");
  };
  report_ = app.add_subcommand(
      "report",
      "Write the HTML dashboard of the last runs; --format csv|md: one run as a table; --unlisted, --stale, "
      "--placeholders: the test_config's coverage gaps (from discovery, no store)");
  db(report_);
  report_->add_option("--out", o_.out, "File to write (default: meshtest-report.html; csv and md: stdout)");
  report_->add_option("--format", o_.format,
                      "html: the dashboard; csv or md: one row per case of one run (id, arch, backend, status, "
                      "outcome, failure class and summary, pcc, duration, peak memory), every arch unless --arch")
      ->check(CLI::IsMember({"html", "csv", "md"}))
      ->capture_default_str();
  report_->add_option("--run", o_.run_id, "--format csv|md: the run to write (default: the newest)");
  report_->add_flag("--unlisted", o_.unlisted,
                    "Coverage: discovered cases with no expected status on --arch (default n150): no entry, or one "
                    "that sets no status for the arch");
  report_->add_flag("--stale", o_.stale, "Coverage: test_config entries whose id no discovered case has");
  report_->add_flag("--placeholders", o_.placeholders, "Coverage: the placeholders (planned models) by bring-up status");
  report_->add_option("--models-root", o_.models_roots,
                      "Coverage: folder to scan for model loaders (repeatable; default: $MESHTEST_MODELS_PATH, then "
                      "the build's models)");
  report_->add_option("--config-dir", o_.config_dir,
                      "Coverage: folder of test_config YAML files (default: $MESHTEST_CONFIG_DIR, then the source "
                      "test_config)");
  report_->add_option("--runs", o_.runs, "How many recent runs to show (default 20)")
      ->check(whole_number_at_least(1));
  report_->add_option("--title", o_.title, "Page title")->capture_default_str();
  report_->add_option("--pcc-margin", o_.pcc_margin, "PCC drop shown as a regression")
      ->check(non_negative_number())
      ->capture_default_str();

  history_ = app.add_subcommand("history", "A case across runs: outcome, PCC, time");
  db(history_);
  history_->add_option("id", o_.test_id, "Test id")->required();
  history_->add_option("--limit", o_.limit, "Most recent results to show")
      ->check(whole_number_at_least(1))
      ->capture_default_str();

  diff_ = app.add_subcommand("diff", "What changed between two runs (default: the last two); exit 1 on regression");
  db(diff_);
  diff_->add_option("run_a", o_.run_a, "Earlier run id");
  diff_->add_option("run_b", o_.run_b, "Later run id (default: the newest)");
  diff_->add_option("--pcc-margin", o_.pcc_margin, "A PCC drop larger than this regresses")
      ->check(non_negative_number())
      ->capture_default_str();
  diff_->add_option("--time-factor", o_.time_factor, "A case this many times slower (and --time-floor more) is slower; 0: off")
      ->check(non_negative_number())
      ->capture_default_str();
  diff_->add_option("--time-floor", o_.time_floor, "Seconds a case must also lose to be slower")
      ->check(non_negative_number())
      ->capture_default_str();
  diff_->add_flag("--fail-on-slower", o_.fail_on_slower, "Slower cases alone exit 1 (by default they are only listed)");
  diff_->add_option("--perf-margin", o_.perf_margin,
                    "Perf: a modelled device time (or a perf run's median execution) growing by more than this "
                    "fraction is listed as a perf regression")
      ->check(non_negative_number())
      ->capture_default_str();
  diff_->add_flag("--fail-on-perf", o_.fail_on_perf, "Perf regressions alone exit 1 (by default they are only listed)");

  flaky_ = app.add_subcommand("flaky", "Cases whose outcome changes across recent runs");
  db(flaky_);
  flaky_->add_option("--runs", o_.runs, "How many recent runs to look at (default 10)")
      ->check(whole_number_at_least(1));

  promote_ = app.add_subcommand("promote", "Turn the last N runs into test_config edits (a unified diff)");
  db(promote_);
  promote_->add_option("--runs", o_.runs, "Cases must pass in each of the last N runs (default 3)")
      ->check(whole_number_at_least(1));
  promote_->add_flag("--write", o_.write, "Apply the edits to the YAML files instead of printing the diff");
  promote_->add_flag("--raise-pcc", o_.raise_pcc,
                     "Also raise a required_pcc below the default 0.99 to the worst PCC - 0.002 (never above 0.99)");

  runs_ = app.add_subcommand("runs", "List recent runs: arches, selection, counts (incl. missing), state");
  db(runs_);
  runs_->add_option("--runs", o_.runs, "How many recent runs to list (default 20)")
      ->check(whole_number_at_least(1));

  promote_->add_option("--config-dir", o_.config_dir,
                       "Folder of test_config YAML files (default: $MESHTEST_CONFIG_DIR, then the source test_config)");
}

std::optional<int> ReportCommands::run() const {
  try {
    if (*report_) return cmd_report(o_);
    if (*history_) return cmd_history(o_);
    if (*diff_) return cmd_diff(o_);
    if (*flaky_) return cmd_flaky(o_);
    if (*promote_) return cmd_promote(o_);
    if (*runs_) return cmd_runs(*open_existing(o_.db), o_.runs > 0 ? o_.runs : 20, o_.arch, std::cout);
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace meshtest::runner
