// `changed` and `--changed`: options and printing (see changed_command.h).
#include "runner/cli/changed_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "runner/cli/changed_cases.h"

namespace meshtest::runner {

namespace {

constexpr const char* kBaseHelp =
    "A git revision (origin/main, HEAD~1, a hash) of the repository that holds the config folder";

void print_notes(const ChangedCases& changed, std::ostream& out) {
  for (const std::string& note : changed.notes) out << "note: " << note << "\n";
}

}  // namespace

void add_changed_option(CLI::App* cmd, CommonOptions& options) {
  cmd->add_option("--changed", options.changed_base,
                  "Only the cases changed since this git revision (as `meshtest changed --base REF`: test_config "
                  "entries added, removed or edited, loader files changed); the other selection options narrow "
                  "it further; nothing changed: nothing runs, exit 0");
}

bool keep_changed_cases(Collected& collected, const CommonOptions& options, std::ostream& report) {
  if (options.changed_base.empty()) return true;
  ChangedCases changed;
  try {
    changed = find_changed_cases(collected, options, options.changed_base);
  } catch (const Error& e) {
    report << "error: --changed " << options.changed_base << ": " << e.what() << "\n";
    return false;
  }
  print_notes(changed, report);
  std::set<std::string> ids;
  for (const ChangedCase& c : changed.cases) ids.insert(c.id);
  std::vector<const TestCase*>& selected = collected.selection.selected;
  const size_t before = selected.size();
  std::erase_if(selected, [&](const TestCase* t) { return !ids.count(t->id); });
  collected.selection.deselected += before - selected.size();
  report << "--changed " << options.changed_base << ": " << selected.size() << " selected case(s) changed ("
         << changed.cases.size() << " changed id(s) in all)" << (selected.empty() ? ": nothing to run" : "") << "\n";
  return true;
}

ChangedCommand::ChangedCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "changed",
      "Print the test ids a change since a git revision touches: test_config entries (and placeholders) added, "
      "removed or with any field changed, and every case of a loader folder with a changed file; one per line "
      "with the reason (-q: ids only)");
  command_->add_option("--base", base_, kBaseHelp)->required();
  command_->add_option("--models-root", options_.models_roots,
                       "Folder to scan for model loaders (repeatable; default: $MESHTEST_MODELS_PATH, then the "
                       "build's models, compared as the source tree's models/)");
  command_->add_option("--config-dir", options_.config_dir,
                       "Folder of test_config YAML files (default: $MESHTEST_CONFIG_DIR, then the source "
                       "test_config); its git repository is the one compared");
}

std::optional<int> ChangedCommand::run(int verbosity) const {
  if (!*command_) return std::nullopt;
  std::ostringstream problems;  // config warnings (stale ids, ...) are not this command's: shown only when it fails
  auto collected = collect_cases(options_, &problems);
  if (!collected) {
    std::cerr << problems.str();
    return 2;
  }
  ChangedCases changed;
  try {
    changed = find_changed_cases(*collected, options_, base_);
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  print_notes(changed, std::cerr);
  for (const ChangedCase& c : changed.cases) {
    if (verbosity < 0) {
      std::cout << c.id << "\n";
      continue;
    }
    std::cout << c.id << "  " << c.reason << (c.in_matrix ? "" : " (no case in the matrix)") << "\n";
  }
  if (verbosity >= 0) std::cerr << changed.cases.size() << " changed id(s) since " << base_ << "\n";
  return 0;
}

}  // namespace meshtest::runner
