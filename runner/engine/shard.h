// CI sharding (--shard I/N, I in 1..N): a deterministic split of the selected
// cases in which every case lands in exactly one shard. With history, cases
// are balanced by duration (longest first onto the least-loaded shard; cases
// without history count as the mean known duration); without any history,
// the cases are ordered by a stable (finalised) hash of the test id and dealt
// round robin, so shard sizes differ by at most one for every N. Every shard must see the same selection
// and the same history (e.g. a copy of the same results database).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reports/result_store.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

struct ShardSpec {
  int index = 1;  // 1-based
  int count = 1;
};

// "2/4" -> {2, 4}; throws ParseError when malformed or out of range.
ShardSpec parse_shard(const std::string& text);

// Shard of every case (0-based), in the order of `cases`.
std::vector<int> assign_shards(const std::vector<const TestCase*>& cases, int count,
                               const std::map<std::string, reports::CaseHistory>& history);

std::vector<const TestCase*> select_shard(const std::vector<const TestCase*>& cases, const ShardSpec& shard,
                                          const std::map<std::string, reports::CaseHistory>& history);

}  // namespace meshtest::runner
