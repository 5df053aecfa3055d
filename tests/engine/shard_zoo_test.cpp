// Shards without history over the real zoo: for N = 2..16 every shard of the
// default selection gets cases, no shard strays from the mean by more than
// one case, and every case lands in exactly one shard.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runner/collection/collection.h"
#include "runner/engine/shard.h"

namespace meshtest::runner {
namespace {

TEST(ShardZoo, EveryShardOfTheZooIsEvenWithoutHistory) {
  const std::unique_ptr<Collected> zoo = collect_cases(CommonOptions{}, nullptr);
  ASSERT_TRUE(zoo);
  const std::vector<const TestCase*>& cases = zoo->selection.selected;
  ASSERT_GE(cases.size(), 16u) << "the zoo is too small to test 16 shards";
  for (int n = 2; n <= 16; ++n) {
    const std::vector<int> shard = assign_shards(cases, n, {});
    std::map<int, size_t> sizes;
    for (int s : shard) ++sizes[s];
    const double mean = static_cast<double>(cases.size()) / n;
    for (int s = 0; s < n; ++s) {
      EXPECT_GT(sizes[s], 0u) << "shard " << s + 1 << "/" << n << " is empty";
      EXPECT_LE(std::abs(static_cast<double>(sizes[s]) - mean), 1.0) << "shard " << s + 1 << "/" << n;
    }
    std::multiset<std::string> seen;
    for (int i = 1; i <= n; ++i) {
      for (const TestCase* t : select_shard(cases, {i, n}, {})) seen.insert(t->id);
    }
    ASSERT_EQ(seen.size(), cases.size()) << n << " shards";
    for (const TestCase* t : cases) EXPECT_EQ(seen.count(t->id), 1u) << t->id << " in " << n << " shards";
  }
}

}  // namespace
}  // namespace meshtest::runner
