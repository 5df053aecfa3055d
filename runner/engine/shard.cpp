// Shard assignment: duration-balanced from history, else a stable hash.
#include "runner/engine/shard.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace meshtest::runner {

namespace {

// FNV-1a, stable across machines and builds (std::hash is not), then the
// splitmix64 finaliser: FNV-1a alone leaves the low bits depending on the
// last characters only, so `% N` for a power-of-two N put ids that end alike
// into one shard.
uint64_t stable_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  ShardSpec spec;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    size_t used = 0;
    spec.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    spec.count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw ParseError("--shard '" + text + "': expected I/N, e.g. 2/4");
  }
  if (spec.count < 1 || spec.index < 1 || spec.index > spec.count) {
    throw ParseError("--shard '" + text + "': need 1 <= I <= N");
  }
  return spec;
}

std::vector<int> assign_shards(const std::vector<const TestCase*>& cases, int count,
                               const std::map<std::string, reports::CaseHistory>& history) {
  std::vector<int> shard(cases.size(), 0);
  std::vector<double> seconds(cases.size(), -1);
  double known_total = 0;
  size_t known = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto it = history.find(cases[i]->id);
    if (it != history.end() && it->second.runs > 0) {
      seconds[i] = it->second.median_wall_seconds;
      known_total += seconds[i];
      ++known;
    }
  }
  if (known == 0) {  // dealt in hash order: shard sizes differ by at most one
    std::vector<std::pair<uint64_t, size_t>> by_hash;
    for (size_t i = 0; i < cases.size(); ++i) by_hash.emplace_back(stable_hash(cases[i]->id), i);
    std::sort(by_hash.begin(), by_hash.end());
    for (size_t k = 0; k < by_hash.size(); ++k) shard[by_hash[k].second] = static_cast<int>(k % count);
    return shard;
  }
  const double mean = known_total / static_cast<double>(known);
  for (double& s : seconds) {
    if (s < 0) s = mean;
  }
  std::vector<size_t> order(cases.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (seconds[a] != seconds[b]) return seconds[a] > seconds[b];
    return cases[a]->id < cases[b]->id;
  });
  std::vector<double> load(static_cast<size_t>(count), 0);
  for (size_t i : order) {
    const size_t lightest = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard[i] = static_cast<int>(lightest);
    load[lightest] += seconds[i];
  }
  return shard;
}

std::vector<const TestCase*> select_shard(const std::vector<const TestCase*>& cases, const ShardSpec& spec,
                                          const std::map<std::string, reports::CaseHistory>& history) {
  const std::vector<int> shard = assign_shards(cases, spec.count, history);
  std::vector<const TestCase*> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (shard[i] == spec.index - 1) out.push_back(cases[i]);
  }
  return out;
}

}  // namespace meshtest::runner
