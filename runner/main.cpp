// meshtest's command line: subcommands, options and exit status.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "core/error.h"
#include "runner/commands.h"

namespace {

using meshtest::runner::CommonOptions;
using meshtest::runner::RunOptions;

void add_selection_options(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("ids", o.selection.ids, "Exact test ids to select");
  cmd->add_option("-k", o.selection.keyword,
                  "Keyword expression: case-insensitive substrings of ids and markers, with and/or/not/()");
  cmd->add_option("-m", o.selection.marker, "Marker expression, e.g. \"single_device and not training\"");
  cmd->add_option("--arch", o.arch, "Target arch profile")->capture_default_str();
  cmd->add_option("--models-root", o.models_roots,
                  "Folder to scan for model loaders (repeatable; default: $MESHTEST_MODELS_PATH, then the build's "
                  "models)");
  cmd->add_option("--config-dir", o.config_dir,
                  "Folder of test_config YAML files (default: $MESHTEST_CONFIG_DIR, then the source test_config)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"meshtest: runs model test matrices on simulated accelerator meshes and checks them against a CPU "
               "reference."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("meshtest ") + MESHTEST_VERSION);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Debug logging (or MESHTEST_LOG_LEVEL=debug)");

  CommonOptions collect_opts;
  auto* collect = app.add_subcommand("collect", "List the selected test ids");
  add_selection_options(collect, collect_opts);

  CommonOptions run_common;
  RunOptions run_opts;
  auto* run = app.add_subcommand("run", "Run the selected cases and report");
  add_selection_options(run, run_common);
  run->add_option("--junitxml", run_opts.junitxml, "Write a JUnit XML report to this file");
  run->add_option("--db", run_opts.db, "SQLite results database (\"\" to disable)")->capture_default_str();
  run->add_option("--optimization-level", run_opts.optimization_level, "Compiler optimization level")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  run->add_flag("--force-run", run_opts.force_run, "Also run NOT_SUPPORTED_SKIP cases");
  run->add_flag("!--no-strict-xfail", run_opts.strict_xfail, "An xfail case that passes is not an error");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (const char* level = std::getenv("MESHTEST_LOG_LEVEL")) spdlog::set_level(spdlog::level::from_str(level));
  if (verbose) spdlog::set_level(spdlog::level::debug);
  spdlog::set_pattern("[%l] %v");

  for (int i = 0; i < argc; ++i) run_opts.argv += (i ? " " : "") + std::string(argv[i]);
  try {
    if (*collect) return meshtest::runner::cmd_collect(collect_opts);
    if (*run) return meshtest::runner::cmd_run(run_common, run_opts);
  } catch (const std::exception& e) {
    std::cerr << "meshtest: internal error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}
