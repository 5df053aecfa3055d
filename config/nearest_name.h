// "Did you mean" support: edit distance between names and the nearest
// candidate to a misspelt one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::config {

// Optimal string alignment distance: insertions, deletions, substitutions and
// transpositions of adjacent characters each cost 1.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `name` (first one on ties). With `max_distance`,
// only a candidate at most that far away.
std::optional<std::string> nearest_name(std::string_view name, const std::vector<std::string>& candidates,
                                        std::optional<size_t> max_distance = std::nullopt);

// nearest_name with the threshold used for field and enum names: a third of
// the name's length, at least 1, so "stauts" finds "status" and "xyz" nothing.
std::optional<std::string> did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// ", " separated, for "allowed: A, B, C" lists.
std::string join_names(const std::vector<std::string>& names);

// "unknown <noun> 'x' (did you mean 'y'?); known <noun>s: a, b": a name that
// is not one of `known` (the suggestion only when one is near).
std::string unknown_name_message(std::string_view noun, std::string_view name, const std::vector<std::string>& known);

}  // namespace meshtest::config
