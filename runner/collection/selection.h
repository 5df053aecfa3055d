// Selection of cases from the matrix: -k, -m, exact ids, and the statuses
// that are deselected outright (EXCLUDE_MODEL).
//  - ids: exact test ids; an id that matches nothing is an error (exit 2).
//  - -k: case-insensitive substring of the id or of any marker.
//  - -m: exact marker names; a name that no case of the matrix carries (nor
//    an arch name) is an error naming the nearest known marker, unless
//    allow_unknown_markers (--allow-unknown-markers).
//  - Cases for loaders that failed to load honour ids and -k (matched on the
//    loader folder) but not -m: a nightly must see a broken loader.
#pragma once

#include <string>
#include <vector>

#include "runner/collection/test_case.h"

namespace meshtest::runner {

struct SelectionOptions {
  std::string keyword;  // -k
  std::string marker;   // -m
  std::vector<std::string> ids;
  bool allow_unknown_markers = false;  // --allow-unknown-markers
};

struct Selection {
  std::vector<const TestCase*> selected;
  size_t deselected = 0;
};

// Throws ParseError for a malformed expression, Error for unknown ids or markers.
Selection select_cases(const std::vector<TestCase>& cases, const SelectionOptions& options);

}  // namespace meshtest::runner
