// Shared collection: config loading and checks, discovery, matrix, selection.
#include "runner/collection/collection.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "config/arch_names.h"
#include "config/backend_names.h"
#include "config/cross_checks.h"
#include "core/error.h"
#include "runner/collection/matrix.h"

#ifndef MESHTEST_DEFAULT_MODELS_ROOT
#define MESHTEST_DEFAULT_MODELS_ROOT "models"
#endif
#ifndef MESHTEST_DEFAULT_CONFIG_DIR
#define MESHTEST_DEFAULT_CONFIG_DIR "test_config"
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

void print(std::ostream* report, const std::vector<config::Diagnostic>& diagnostics) {
  if (!report) return;
  for (const config::Diagnostic& d : diagnostics) *report << d.to_string() << "\n";
}

}  // namespace

std::vector<std::string> resolved_models_roots(const CommonOptions& o) {
  if (!o.models_roots.empty()) return o.models_roots;
  if (const char* env = std::getenv("MESHTEST_MODELS_PATH")) {
    auto roots = split_path_list(env);
    if (!roots.empty()) return roots;
  }
  return {MESHTEST_DEFAULT_MODELS_ROOT};
}

std::string resolved_config_dir(const CommonOptions& o) {
  if (!o.config_dir.empty()) return o.config_dir;
  if (const char* env = std::getenv("MESHTEST_CONFIG_DIR")) return env;
  return MESHTEST_DEFAULT_CONFIG_DIR;
}

std::string shipped_config_dir() { return MESHTEST_DEFAULT_CONFIG_DIR; }

std::optional<config::TestConfig> load_checked_config(const std::string& path, std::ostream* report) {
  std::vector<config::Diagnostic> diagnostics;
  config::TestConfig config = config::load_test_config(path, diagnostics);
  print(report, diagnostics);
  const size_t errors = config::count_errors(diagnostics);
  if (errors == 0) return config;
  if (report) *report << "error: " << errors << " problem(s) in test config '" << path << "'\n";
  return std::nullopt;
}

namespace {

// The ids a test_config entry can name: every case but placeholders and loaders that failed.
std::vector<std::string> known_case_ids(const std::vector<TestCase>& cases) {
  std::vector<std::string> ids;
  ids.reserve(cases.size());
  for (const TestCase& c : cases) {
    if (!c.placeholder && c.loader_error.empty()) ids.push_back(c.id);
  }
  return ids;
}

std::vector<config::KnownModel> known_models(const discovery::Discovery& discovery) {
  std::vector<config::KnownModel> models;
  for (const discovery::DiscoveredLoader& l : discovery.loaders) {
    for (const sdk::ModelInfo& info : l.variants) models.push_back({l.dir, info.model, info.variant});
  }
  return models;
}

// Stale ids as one line unless `each`: a --models-root that names one folder
// leaves every entry for the others stale (hundreds of lines otherwise).
void print_stale_ids(std::ostream* report, const std::vector<config::Diagnostic>& stale, bool each) {
  if (!report || stale.empty()) return;
  if (each || stale.size() == 1) return print(report, stale);
  *report << "warning: " << stale.size() << " test_config entries match no discovered case (the first at "
          << stale.front().where.to_string() << "); -v or `meshtest validate-config` lists each\n";
}

}  // namespace

std::vector<config::Diagnostic> check_config_against_matrix(const config::TestConfig& config,
                                                            const discovery::Discovery& discovery,
                                                            const std::vector<TestCase>& cases,
                                                            config::Severity severity) {
  std::vector<config::Diagnostic> out;
  config::check_stale_ids(config, known_case_ids(cases), severity, out);
  config::check_placeholders(config, known_models(discovery), severity, out);
  return out;
}

std::optional<std::string> target_problem(const CommonOptions& o) {
  if (auto problem = config::unknown_arch_message(o.arch)) return "error: --arch: " + *problem;
  if (auto problem = config::unknown_backend_message(o.backend)) return "error: --backend: " + *problem;
  return std::nullopt;
}

std::unique_ptr<Collected> collect_cases(const CommonOptions& o, std::ostream* report) {
  if (auto problem = target_problem(o)) {
    if (report) *report << *problem << "\n";
    return nullptr;
  }
  auto c = std::make_unique<Collected>();
  std::optional<config::TestConfig> config = load_checked_config(resolved_config_dir(o), report);
  if (!config) return nullptr;
  c->config = std::move(*config);
  const auto start = std::chrono::steady_clock::now();
  c->discovery = discovery::discover(resolved_models_roots(o));
  spdlog::debug("discovered {} loaders ({} failed) in {:.1f} ms", c->discovery.loaders.size(),
                c->discovery.failures.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  c->cases = build_matrix(c->discovery, c->config, {o.arch, o.backend, o.emitc});
  std::vector<config::Diagnostic> stale, duplicates;
  config::check_stale_ids(c->config, known_case_ids(c->cases), config::Severity::Warning, stale);
  print_stale_ids(report, stale, o.each_stale_id);
  config::check_placeholders(c->config, known_models(c->discovery), config::Severity::Warning, duplicates);
  print(report, duplicates);
  try {
    c->selection = select_cases(c->cases, o.selection);
  } catch (const Error& e) {
    if (report) *report << "error: " << e.what() << "\n";
    return nullptr;
  }
  return c;
}

}  // namespace meshtest::runner
