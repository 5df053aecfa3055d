// `meshtest changed --base REF` and `run --changed REF`: the cases a change
// since the git revision REF touches. A case is changed when its test_config
// entry (or placeholder) was added, removed or differs in any parsed field
// between REF and the working tree (locations do not count: moving an entry
// is no change), or when a file of its loader folder differs (tracked files
// per `git diff REF`, plus untracked ones). The repository is the one that
// holds the config folder; the build's own models root stands for the
// source tree's models/ folder (its loader.so files are not in git).
#pragma once

#include <string>
#include <vector>

#include "config/test_config.h"
#include "runner/collection/collection.h"

namespace meshtest::runner {

struct ChangedCase {
  std::string id;
  std::string reason;  // "status EXPECTED_PASSING -> KNOWN_FAILURE_XFAIL", "added", "loader file x.cpp", ...
  bool in_matrix = false;  // a case of the current matrix (a removed entry's id may be none): `run` can select it
};

struct ChangedCases {
  std::vector<ChangedCase> cases;  // sorted by id, one per id (reasons joined with "; ")
  std::vector<std::string> notes;  // changed files no loader owns, roots outside the repository
};

// Entries and placeholders that differ between `before` and `after`, by id, with the reason.
std::vector<ChangedCase> changed_entries(const config::TestConfig& before, const config::TestConfig& after);

// The cases of the loaders that own `files` (paths relative to one models
// root: "resnet/native/loader.cpp", or a declarative loader file itself,
// "ops/add.mtir"); files that no loader folder holds go to `unowned`.
std::vector<ChangedCase> cases_of_changed_files(const std::vector<std::string>& files,
                                                const std::vector<TestCase>& cases,
                                                std::vector<std::string>& unowned);

// Both, for the collection `collected` made from `options`, against `base`.
// Throws meshtest::Error when git cannot answer (not a repository, unknown revision).
ChangedCases find_changed_cases(const Collected& collected, const CommonOptions& options, const std::string& base);

}  // namespace meshtest::runner
