// collect and run: discovery -> matrix -> selection -> (pipeline -> reports).
#include "runner/commands.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "config/test_config.h"
#include "core/error.h"
#include "discovery/discovery.h"
#include "reports/junit_xml.h"
#include "reports/result_store.h"
#include "runner/case_pipeline.h"
#include "runner/console_report.h"
#include "runner/matrix.h"

#ifndef MESHTEST_DEFAULT_MODELS_ROOT
#define MESHTEST_DEFAULT_MODELS_ROOT "models"
#endif
#ifndef MESHTEST_DEFAULT_CONFIG_DIR
#define MESHTEST_DEFAULT_CONFIG_DIR "test_config"
#endif
#ifndef MESHTEST_GIT_SHA
#define MESHTEST_GIT_SHA "unknown"
#endif

namespace meshtest::runner {

namespace {

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ':')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<std::string> models_roots(const CommonOptions& o) {
  if (!o.models_roots.empty()) return o.models_roots;
  if (const char* env = std::getenv("MESHTEST_MODELS_PATH")) {
    auto roots = split_path_list(env);
    if (!roots.empty()) return roots;
  }
  return {MESHTEST_DEFAULT_MODELS_ROOT};
}

std::string config_dir(const CommonOptions& o) {
  if (!o.config_dir.empty()) return o.config_dir;
  if (const char* env = std::getenv("MESHTEST_CONFIG_DIR")) return env;
  return MESHTEST_DEFAULT_CONFIG_DIR;
}

// Everything collect and run share: discovery, config, matrix, selection.
struct Collected {
  discovery::Discovery discovery;
  config::TestConfig config;
  std::vector<TestCase> cases;
  Selection selection;
};

// Returns nullptr after printing the reason when the config or the selection is invalid.
std::unique_ptr<Collected> collect(const CommonOptions& o) {
  auto c = std::make_unique<Collected>();
  std::vector<config::Diagnostic> diagnostics;
  const std::string dir = config_dir(o);
  c->config = config::load_test_config(dir, diagnostics);
  if (!diagnostics.empty()) {
    for (const auto& d : diagnostics) std::cerr << d.to_string() << "\n";
    std::cerr << "error: " << diagnostics.size() << " problem(s) in test config '" << dir << "'\n";
    return nullptr;
  }
  const auto start = std::chrono::steady_clock::now();
  c->discovery = discovery::discover(models_roots(o));
  spdlog::debug("discovered {} loaders ({} failed) in {:.1f} ms", c->discovery.loaders.size(),
                c->discovery.failures.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  c->cases = build_matrix(c->discovery, c->config);
  try {
    c->selection = select_cases(c->cases, o.selection);
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return nullptr;
  }
  return c;
}

std::string new_run_id() {
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
  std::string ts = reports::utc_now_iso8601();  // 2026-11-22T03:15:00.123Z
  std::string compact;
  for (char ch : ts.substr(0, 19)) {
    if (ch != '-' && ch != ':') compact += ch;
  }
  return compact + "Z-" + suffix;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

int cmd_collect(const CommonOptions& o) {
  auto c = collect(o);
  if (!c) return 2;
  for (const TestCase* t : c->selection.selected) {
    std::cout << t->id;
    if (!t->loader_error.empty()) std::cout << "  [loader error: " << t->loader_error << "]";
    std::cout << "\n";
  }
  const size_t total = c->cases.size();
  const size_t selected = c->selection.selected.size();
  if (c->selection.deselected == 0) {
    std::cout << selected << " tests collected\n";
  } else {
    std::cout << selected << "/" << total << " tests collected (" << c->selection.deselected << " deselected)\n";
  }
  return 0;
}

int cmd_run(const CommonOptions& o, const RunOptions& ro) {
  auto c = collect(o);
  if (!c) return 2;

  PipelineOptions popts;
  popts.chip.arch = o.arch;
  popts.optimization_level = ro.optimization_level;
  popts.force_run = ro.force_run;
  popts.strict_xfail = ro.strict_xfail;

  reports::RunInfo run;
  run.run_id = new_run_id();
  run.git_sha = MESHTEST_GIT_SHA;
  run.host = host_name();
  run.argv = ro.argv;
  run.arch = o.arch;
  run.selection = "-k '" + o.selection.keyword + "' -m '" + o.selection.marker + "'";
  run.versions = std::string("meshtest ") + MESHTEST_VERSION;
  run.started_at = reports::utc_now_iso8601();

  std::unique_ptr<reports::ResultStore> store;
  if (!ro.db.empty()) {
    try {
      store = reports::open_store(ro.db);
      store->begin_run(run);
    } catch (const Error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
  }

  std::cout << "meshtest run " << run.run_id << ": " << c->selection.selected.size() << " case(s) on " << o.arch
            << "\n";
  const auto start = std::chrono::steady_clock::now();
  std::vector<reports::CaseResult> results;
  for (const TestCase* t : c->selection.selected) {
    reports::CaseResult r = run_case(*t, popts);
    print_case_line(std::cout, r);
    if (store) store->record(run.run_id, r);
    results.push_back(std::move(r));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.finished_at = reports::utc_now_iso8601();
  if (store) store->finish_run(run.run_id, run.finished_at);
  if (!ro.junitxml.empty()) reports::write_junit_xml(ro.junitxml, run, results);
  print_summary(std::cout, results, seconds);
  if (store) std::cout << "results stored in " << ro.db << " (run " << run.run_id << ")\n";
  for (const auto& r : results) {
    if (is_unexpected(r)) return 1;
  }
  return 0;
}

}  // namespace meshtest::runner
