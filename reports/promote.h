// promote: turns the last N runs into test_config edits. A case that passed
// in every one of the N runs (and is not flaky) moves from UNSPECIFIED or
// KNOWN_FAILURE_XFAIL to EXPECTED_PASSING (its reason, bringup_status and execution_pass go
// with it; a case without an entry gets one); a disabled PCC check that would
// pass is re-enabled; with raise_pcc, a required_pcc below the default rises
// toward the worst observed PCC (reports/guidance.h). A pass on an arch
// outside the entry's supported_archs adds the arch there, and, when the
// case passed only on such archs, promotes it through arch_overrides.
// The edits are line-based (reports/yaml_entry_edits.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/run_analysis.h"
#include "reports/yaml_entry_edits.h"

namespace meshtest::reports {

struct PromotedFile {
  std::string path;          // on disk
  std::string display_name;  // in the diff: <config dir name>/<relative path>
  YamlEntryEdits edits;
};

struct PromotionPlan {
  std::vector<PromotedFile> files;   // only files with changes
  std::vector<std::string> changes;  // "<id>: status KNOWN_FAILURE_XFAIL -> EXPECTED_PASSING", ...
  std::vector<std::string> notes;    // why something was not promoted
  std::string unified_diff() const;
  // Writes every changed file (atomically, temp file + rename).
  void write() const;
};

struct PromoteOptions {
  bool raise_pcc = false;  // --raise-pcc
};

// `runs` oldest first; every case must pass in all of them.
PromotionPlan plan_promotions(const std::vector<RunResults>& runs, const std::string& config_dir,
                              const PromoteOptions& options = {});

}  // namespace meshtest::reports
