// How `collect` and `run --collect-only` list the selected cases: each id
// with its config status, markers and reason (-q: the bare ids), or grouped
// by loader folder (--tree), then "N/M tests collected (K deselected)"; with
// -q that line goes to `summary` (stderr), so stdout is the ids alone.
#pragma once

#include <ostream>
#include <vector>

#include "runner/collection/test_case.h"

namespace meshtest::runner {

struct CollectView {
  bool tree = false;  // --tree: grouped by loader folder
  int verbosity = 0;  // -q: ids only
};

void print_collection(std::ostream& out, std::ostream& summary, const std::vector<const TestCase*>& selected,
                      size_t collected, size_t deselected, const CollectView& view);

}  // namespace meshtest::runner
