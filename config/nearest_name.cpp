// Edit distance (optimal string alignment) and nearest-name lookup.
#include "config/nearest_name.h"

#include <algorithm>

namespace meshtest::config {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows: i-2, i-1, i.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> nearest_name(std::string_view name, const std::vector<std::string>& candidates,
                                        std::optional<size_t> max_distance) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(name, c);
    if (max_distance && d > *max_distance) continue;
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::optional<std::string> did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  return nearest_name(name, candidates, std::max<size_t>(1, name.size() / 3));
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string unknown_name_message(std::string_view noun, std::string_view name, const std::vector<std::string>& known) {
  std::string message = "unknown " + std::string(noun) + " '" + std::string(name) + "'";
  if (auto near = did_you_mean(name, known)) message += " (did you mean '" + *near + "'?)";
  return message + "; known " + std::string(noun) + "s: " + join_names(known);
}

}  // namespace meshtest::config
