// --lf / --ff: the cases whose newest final result on an arch, over the
// store's recent runs, did not pass (failed, error, strict xpass) — pytest's
// "last failed", read from the results store instead of a cache folder.
#pragma once

#include <set>
#include <string>

#include "reports/result_store.h"

namespace meshtest::runner {

// How many recent runs --lf/--ff look back over.
inline constexpr int kLastFailedRuns = 20;

std::set<std::string> last_failed_ids(reports::ResultStore& store, const std::string& arch,
                                      int runs = kLastFailedRuns);

}  // namespace meshtest::runner
