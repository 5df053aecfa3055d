// Coverage gaps of the test_config against what discovery finds, for
// `meshtest report --unlisted / --stale / --placeholders`: discovered cases
// with no expectation on an arch (no entry, or an entry that sets no status
// for it: tt-xla's UNSPECIFIED), entries whose id no discovered case has
// (stale or misspelt, with the nearest id), and the placeholders (planned
// models) grouped by bring-up status.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "config/diagnostic.h"
#include "runner/collection/collection.h"

namespace meshtest::runner {

struct UnlistedCase {
  std::string id;
  bool has_entry = false;  // an entry exists but sets no status on this arch
};

struct CoverageGaps {
  std::string arch;
  std::vector<UnlistedCase> unlisted;                           // sorted by id
  std::vector<config::Diagnostic> stale;                        // one per stale entry, at its key
  std::map<std::string, std::vector<std::string>> placeholders;  // bring-up status name -> ids
};

// The gaps of `collected` (its matrix built for `arch`).
CoverageGaps find_coverage_gaps(const Collected& collected, const std::string& arch);

struct GapSections {
  bool unlisted = false, stale = false, placeholders = false;
};

// The chosen sections, each "<title> (N)" then one line per item.
void print_coverage_gaps(std::ostream& out, const CoverageGaps& gaps, const GapSections& sections);

}  // namespace meshtest::runner
